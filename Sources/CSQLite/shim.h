// The system SQLite library (libsqlite3-dev on Debian and Ubuntu), for ArchiveMigrateKit's SQLite
// stores on Linux. Apple platforms import the SDK's SQLite3 module instead.
#include <sqlite3.h>
