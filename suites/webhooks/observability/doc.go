// Package observability holds the webhooks suite's specs of what admission
// leaves observable: the apiserver's admission metrics (steps, webhook calls,
// policy checks, match conditions) and the audit annotations of mutations.
package observability
