// The `xid` command-line tool; everything but this line is in XidCLI.
import Foundation
import XidCLI

exit(await XidCommandLine.main())
