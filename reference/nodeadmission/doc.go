// Package nodeadmission is the project's reference implementation of the
// node-local pod admission plugin host proposed by KEP-2823 (seed 004). The
// upstream kubelet never merged it; hollow kubelets in the embedded cluster
// host it through their container manager's admit handler, so the seed's
// contract can be checked against a real kubelet admit chain.
//
// The contract, as implemented here:
//
//   - Configuration: a JSON file in the configuration directory (the
//     lexically first file ending in .json or .conf), with the seed's schema
//     {"name", "version", "plugins": [{"name", "type"}]}. It is read for every
//     admission, so a change applies to the next pod. No file means no
//     plugins; an unreadable or invalid file rejects every pod.
//   - Discovery: each plugin is the entry called after its name in the plugin
//     directory: an executable for type "shell", a regular file holding a
//     loopback "host:port" (or just a port) for type "grpc", a Unix socket for
//     type "socket".
//   - Invocation: the pod, encoded as JSON (a v1 Pod with apiVersion and
//     kind), goes to every plugin at once, each with its own timeout. A shell
//     plugin reads it on stdin and writes an AdmitResult as JSON on stdout
//     (stderr is kept for the rejection message); a gRPC plugin answers
//     PodAdmission.Admit (pluginapi/v1alpha1); a socket plugin reads the pod
//     until the host half-closes the connection and writes the AdmitResult
//     JSON before closing its end.
//   - Decision: the pod is admitted when every plugin admits. Otherwise the
//     first rejection in configuration order wins: a plugin's own rejection
//     keeps its Reason and Message unchanged; a plugin that crashes, exits
//     non-zero, answers garbage, cannot be reached or does not answer within
//     the timeout rejects the pod (fail closed) with one of the Reason*
//     constants and a message that names the plugin.
package nodeadmission
