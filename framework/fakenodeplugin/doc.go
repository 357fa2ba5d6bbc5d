// Package fakenodeplugin is the harness's fake KEP-2823 node admission
// plugin: one program (this binary, run as a child with role "node-plugin")
// that behaves as told — admit, reject with a given reason and message,
// answer late, crash, answer garbage, exit non-zero — as any of the three
// plugin types, and journals every invocation with the pod it saw.
//
//   - shell: Install starts this binary as a long-lived server reading a
//     request FIFO, and writes an executable POSIX shell script in the
//     node's plugin directory that passes each pod to it (a shim) (shell.go); each
//     admission is one process of that script, its exit status and output
//     the server's verdict. (Re-executing this binary for each admission
//     cost up to seconds beside a CPU hog.)
//   - grpc and socket: Install starts this binary as a long-lived server
//     (killed by Remove) listening on a loopback port (written to the plugin
//     directory entry) or on a Unix socket (the plugin directory entry).
//
// The journal is one JSON file per invocation under the plugin's state
// directory, written when the pod arrives and rewritten when the answer
// leaves, with CLOCK_MONOTONIC times that compare across processes.
package fakenodeplugin
