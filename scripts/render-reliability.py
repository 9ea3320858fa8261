#!/usr/bin/env python3
"""Renders docs/reliability.md from the fault matrix's results (the JSON files FaultMatrixTests writes
to $XID_RELIABILITY_RESULTS). Standard library only. Called by scripts/reliability-report.sh.

usage: render-reliability.py RESULTS_DIR > docs/reliability.md
"""
import json
import os
import sys

MODES = [("one-process", "One process"), ("eight-processes", "8 processes")]

OUTCOMES = [
    ("keptWithoutError", "Session kept, no error reached the app"),
    ("keptAfterTransientFailure", "Session kept after a transient error"),
    ("newSignInKept", "The new sign-in is kept"),
    ("signedOut", "Signed out by the user, and stays signed out"),
    ("endedByProvider", "Session ended by the provider (proven dead grant)"),
    ("unexpected", "Unexpected"),
]

EXPLANATIONS = {
    "keptWithoutError": "The fault never reached the app: a lock left by a killed process is released by the "
    "system, and a failed write is tried again, the refreshing process holding the lock until its tokens are "
    "saved, so that no other process reads the spent refresh token meanwhile. The read that compares the stored "
    "record before the save is part of each attempt: a record that cannot be read once the provider answered "
    "is read again with the next attempt, and the rotated tokens are never dropped.",
    "keptAfterTransientFailure": "The callers of the process that met the fault got an error worth retrying "
    "(the user is still signed in), and so may the processes that waited for its lock meanwhile "
    "(`lockTimeout`); another process, or the next expiry, refreshed.",
    "newSignInKept": "The refresh that started before the sign-in did not overwrite it: a sign-in is stored at "
    "once, without waiting for the refresh lock (so a refresh slower than the lock timeout cannot make it fail), "
    "and a refresh compares the stored record right before each write and saves nothing over a replaced one. "
    "The first user's newest refresh token was revoked at the provider (its record of revoked tokens shows it): "
    "the one the race left unused, or the replaced session's, when the sign-in revoked it before the held "
    "refresh reached the provider.",
    "signedOut": "The refresh under way saved nothing after the sign-out, in this process or another, and no "
    "session came back at the next expiry. A sign-out deletes the record at once, without waiting for the "
    "refresh lock, so a refresh slower than the lock timeout cannot make it fail, and a refresh compares the "
    "stored record right before each write, also before each retry of a failed save. The first user's newest "
    "refresh token was revoked at the provider (its record of revoked tokens shows it): the one the race left "
    "unused, or the signed-out session's, when the sign-out revoked it before the held refresh reached the "
    "provider (which then refused the refresh; its callers were told `signInRequired`).",
    "endedByProvider": "The provider rotated the refresh token but its answer never arrived whole, so the next "
    "refresh presented the spent token and the provider's reuse detection revoked the grant (`invalid_grant`). "
    "Nothing on the client can recover a token it never received; the session ends cleanly, with "
    "`sessionExpired`, and no corrupt record.",
    "unexpected": "A failure of the matrix.",
}

CHECKS = [
    ("noRecordLostOrCorrupt", "No record lost or corrupt",
     "the stored record is intact afterwards, or absent only after a sign-out or a grant the provider refused"),
    ("noSignOutWithoutDeadGrant", "No sign-out without a proven dead grant",
     "`sessionExpired` and a removed record only where the provider answered `invalid_grant`"),
    ("oneRefreshPerExpiry", "At most one refresh per expiry",
     "refresh requests per expiry round, the retries after a request the fault made fail aside (a request "
     "the fault only delayed is no failure)"),
    ("noSessionBackAfterSignOut", "No session back after a sign-out",
     "after a sign-out, the next expiry finds nobody signed in in any process, and storage stays empty"),
    ("droppedRefreshTokenRevoked", "The dropped refresh token is revoked",
     "after a sign-out or a new sign-in during a refresh, the newest refresh token the provider issued to the "
     "first user (the refresh's, or the replaced one when the race's revocation came first) is in the "
     "provider's record of revoked tokens"),
    ("noSecretInLogsOrErrors", "No token in a log line or an error",
     "no token, code or verifier the provider issued or received appears in any process's log or error"),
]

TIMEOUTS_AND_WRITES = """## Timeouts, and storage that refuses writes

**A timeout is a request left unanswered.** In the timeout case the provider takes the refresh request,
moves its clock on by a minute and holds the request without answering; the client gives up because its
own timeout fires. Xid measures `XidConfiguration.policy.requestTimeout` (30 seconds by default) on the
configured `XidClock`, for every request to the provider, so the test's clock fires it at once; in the 8
processes the test moves every worker's clock by the same minute. The refreshing process holds the
account's lock while it waits for the answer, so the processes queued for that lock give up after
`refreshLockTimeout` (10 seconds by default, also measured on the clock) with `lockTimeout`. Both errors
keep the session and the record: the provider never handled the request, so the refresh token was not
spent, and the next refresh uses it.

**A refresh whose save fails keeps the lock until it is saved.** Once the provider has answered a refresh,
it has spent the stored refresh token: the new tokens exist only in the refreshing process's memory.
Were it to release the lock then, another process would read the spent token from storage, send it, and
the provider's reuse detection would end the session. So the refreshing process keeps the lock and
tries the save again, after pauses of 50 ms doubling to at most a second on the configured clock, up to
8 writes within 5 seconds (under the default lock timeout, so the processes waiting get the saved
tokens), and stops early when the system ends its background time. The case "storage writes that fail
mid-refresh for longer than the first retry" fails the save, its first retry and two more, in one process
and across 8.

**What is left.** If storage refuses writes for longer than that (or refuses the read that compares the
record before each write, or the new refresh token cannot be sealed), or the background time runs out
first, the refreshing process keeps the new tokens in memory (a token that could not be sealed stays
unsealed there, and is sealed before it is saved), logs an error, tries the save again at each use of
the session (at most once a second, without making the caller wait) and before any further refresh. Until
one of those saves succeeds, storage still holds the spent refresh token, and the risk is real: another
process whose access token has expired (or which starts cold) takes the lock, sends the spent token, and
with reuse detection the provider ends the session for every process (`sessionExpired`; the user signs in
again; nothing corrupt is left). The same happens if the process holding the unsaved tokens is killed
before it saves them. Xid cannot avoid this without a place to write: it narrows the window to a storage
failure that outlasts 5 seconds and the background time."""

SIGN_OUT_DURING_REFRESH = """## Sign-out and sign-in during a refresh

**Neither waits for a refresh.** A refresh holds the account's lock for as long as it takes: discovery,
token and key requests of up to `requestTimeout` (30 seconds) each, save retries for up to 5 seconds, a
prompt. A sign-out that waited for the lock would fail with `lockTimeout` after `refreshLockTimeout`
(10 seconds) with nothing deleted, and an app calling `try? signOut()` would leave the user signed in;
a sign-in's tokens would be neither stored nor revoked. So a sign-out deletes the record at once, and a
sign-in stores its record at once, without the lock. Every write of a refresh's result (each attempt of
its save, the deletion after a foreign answer) compares the stored record with the one the refresh read,
right before the write with nothing in between, and writes nothing if it changed; the refresh token the
provider gave it is then revoked. That holds whatever the storage: `InMemoryTokenStorage`,
`KeychainTokenStorage` without a `refreshLockDirectory` (the iOS default) and custom adapters, where the
lock excludes nothing even in one process, as much as storage with a lock directory. In one process the
compare and the sign-out's or sign-in's write both run on the account's actor, so neither can land
between them: nothing is left open there. A sign-out's revocation may reach the provider before a
refresh held there; the provider then refuses the refresh, and its callers are told that nobody is
signed in (`signInRequired`), not that the provider ended the session.

**Across processes, what is left.** Storage has no compare-and-write: between a refresh's compare and
its write, two storage calls in a row, another process's sign-out or sign-in can land, and the refresh
then writes over it. Where there is a lock directory, the sign-out or the sign-in checks the record
again once the lock is free, which the refresh releases only after its writes: it deletes the
signed-out session's refreshed record again, or stores the new sign-in again over the old session's,
and the refresh token it finds there is the one revoked. That check waits at most `refreshLockTimeout`
and never makes the call fail. When the lock is still held then (a refresh that goes on for longer than
the lock timeout after the sign-out or sign-in, as in the two cases "slower than the lock timeout"
above), or where there is no lock directory (nothing tells when another process's refresh is done), the
window stays open: a refresh in another process (or in another `Xid` on the same storage) whose compare
ran just before the sign-out's or sign-in's write, and whose write landed just after it, brings the
signed-out session back into storage (the user signs out again), or puts the old session over the new
sign-in (the old user is signed in again, and the new sign-in's tokens are lost without being
revoked). Apps whose processes share a session should give the storage a lock directory (an App Group
container), which narrows the window to refreshes that outlast the lock timeout."""


def load(directory):
    results = {}
    for mode, _ in MODES:
        with open(os.path.join(directory, mode + ".json"), encoding="utf-8") as handle:
            for case in json.load(handle):
                results[(case["fault"], mode)] = case
    return results


def mode_key(case):
    return "one-process" if case["mode"] == "one process" else "eight-processes"


def passed(case):
    return all(value is not False for value in case["checks"].values())


def outcome_title(key):
    return dict(OUTCOMES).get(key, key)


def errors_seen(case):
    rounds = []
    for number, observed in enumerate(case["rounds"]):
        codes = ", ".join("`%s`" % code for code in sorted(observed["errors"])) or "none"
        rounds.append(("fault round: " if number == 0 else "next expiry: ") + codes)
    return "; ".join(rounds)


def refreshes(case):
    parts = []
    for observed in case["rounds"]:
        requests, faults = observed["refreshRequests"], observed["faultsApplied"]
        failed = observed.get("requestsFailedByFault", faults)
        if not faults:
            note = ""
        elif failed == faults:
            note = " (%d failed by the fault)" % failed
        elif failed == 0:
            note = " (%d delayed by the fault)" % faults
        else:
            note = " (%d met the fault, %d failed by it)" % (faults, failed)
        parts.append("%d" % requests + note)
    return " then ".join(parts)


def main():
    results = load(sys.argv[1])
    faults = []
    for (fault, _mode), case in sorted(results.items(), key=lambda item: item[1]["title"]):
        if fault not in [f for f, _ in faults]:
            faults.append((fault, case["title"]))
    order = [
        "lostResponseAfterRotation", "serverError", "htmlErrorPage", "timeout", "truncatedBody", "oversizedBody",
        "killedLockHolder", "storageWriteFails", "storageWritesFailBeyondRetry", "lockedStorage", "unreadableAfterAnswer",
        "signOutSameProcess", "signOutOtherProcess", "signOutDuringSaveRetry", "signOutDuringSlowRefresh", "newSignIn",
        "newSignInDuringSlowRefresh",
    ]
    faults.sort(key=lambda item: order.index(item[0]) if item[0] in order else len(order))
    cases = list(results.values())
    out = []
    write = out.append
    write("# Reliability: faults, races and hostile answers")
    write("")
    write("<!-- Written by scripts/reliability-report.sh from the results of the FaultMatrixTests suite")
    write("     (Tests/XidSessionTests/FaultMatrix). Do not edit by hand: run the script. -->")
    write("")
    write("Each fault below runs in one process (%s concurrent callers) and across 8 processes (20 callers each), "
          "against Xid's test provider, whose refresh tokens rotate with reuse detection (a spent refresh token "
          "presented again revokes the whole grant), and on the keychain path: `KeychainTokenStorage` whose items "
          "every process shares, with the refresh lock in an App Group folder and real `flock` locks. A case is "
          "two expiry rounds: the round with the fault, then the next expiry. Time is the test's own clock, so no "
          "case waits for a token to expire, and a timeout fires when the test moves the clock." % "40")
    write("")
    write("%d cases, %d passed every check." % (len(cases), sum(1 for case in cases if passed(case))))
    write("")
    write("## The matrix")
    write("")
    write("| Fault | " + " | ".join(title for _, title in MODES) + " |")
    write("| --- | " + " | ".join("---" for _ in MODES) + " |")
    for fault, title in faults:
        cells = []
        for mode, _ in MODES:
            case = results.get((fault, mode))
            if case is None:
                cells.append("not run")
                continue
            mark = "✔" if passed(case) and case["observed"] == case["expected"] else "✘"
            cells.append("%s %s" % (mark, outcome_title(case["observed"])))
        write("| %s | %s |" % (title[0].upper() + title[1:], " | ".join(cells)))
    write("")
    write("✔: the outcome is the one expected and every check passed.")
    write("")
    write("## Cases by outcome")
    for key, title in OUTCOMES:
        members = [case for case in cases if case["observed"] == key]
        if not members:
            continue
        write("")
        write("### " + title)
        write("")
        write(EXPLANATIONS[key])
        write("")
        modes = [mode for mode, _ in MODES]
        for case in sorted(members, key=lambda c: (order.index(c["fault"]) if c["fault"] in order else 99,
                                                    modes.index(mode_key(c)))):
            expected = "" if case["expected"] == case["observed"] else " **(expected: %s)**" % outcome_title(case["expected"])
            write("- %s, %s%s. Errors the app saw: %s. Refresh requests: %s."
                  % (case["title"][0].upper() + case["title"][1:], case["mode"], expected, errors_seen(case),
                     refreshes(case)))
    write("")
    write("## What every case checks")
    write("")
    write("| Check | What it means | Passed |")
    write("| --- | --- | --- |")
    for key, title, meaning in CHECKS:
        applicable = [case for case in cases if case["checks"].get(key) is not None]
        good = [case for case in applicable if case["checks"][key]]
        write("| %s | %s | %d of %d cases |" % (title, meaning, len(good), len(applicable)))
    write("")
    write(TIMEOUTS_AND_WRITES)
    write("")
    write(SIGN_OUT_DURING_REFRESH)
    write("")
    # The last section is written by hand (issue 13's fuzzing and sanitizer results): kept as the
    # current docs/reliability.md has it.
    write(fuzzing_section())
    print("\n".join(out))


def fuzzing_section():
    """The "## Fuzzing and sanitizers" section of the current docs/reliability.md, to its end."""
    heading = "## Fuzzing and sanitizers"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "reliability.md")
    try:
        with open(path, encoding="utf-8") as current:
            text = current.read()
    except OSError:
        text = ""
    start = text.find("\n" + heading + "\n")
    if start < 0:
        return heading + "\n\n<!-- Another engineer fills this section. -->"
    return text[start + 1:].rstrip("\n")


if __name__ == "__main__":
    main()
