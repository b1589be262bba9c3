#pragma once
// What keeps the server's secrets from its own trials while they run as
// the server's user (docs/security.md, "What trials can see"): the
// token's path is not left on the command line, and the server's memory,
// environment and descriptors are not readable through /proc.

namespace hpt::cli {

// Overwrites the value of every --token-file in argv (as "--token-file P"
// or "--token-file=P") with '*', and the password in every --db
// PostgreSQL URL (postgresql://user:PASSWORD@host/db, or ?password=...),
// in place and at the same length, so that /proc/<pid>/cmdline, which
// any process of the same user (and ps, for everyone) reads, no longer
// names the file or shows the password. Call once the arguments are
// parsed, before any thread or child starts.
void HideSecretArguments(int argc, char** argv);

// Marks this process non-dumpable: /proc/<pid>/environ, mem, fd and maps
// become root's, and processes of the same user (trials) can no longer
// ptrace it. Children get the default back when they exec.
void HideProcessFromSameUser();

}  // namespace hpt::cli
