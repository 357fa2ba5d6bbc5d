// Package speckit holds what the specs of several suite packages build
// with: the subject objects and probes, webhook registration and journal
// look-ups, admission policies created, bound and proved enforced (the one
// policy-enforcement probe of every suite), propagation statistics, metrics
// scrapes, and the custom resource and CEL fixtures more than one area uses.
package speckit
