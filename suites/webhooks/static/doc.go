// Package static holds the webhooks suite's specs of static admission
// manifests (configurations and policies read from each apiserver's
// staticManifestsDir): enforced at start, file forms, reload, invalid files
// keeping the previous set, reserved names, and running first.
package static
