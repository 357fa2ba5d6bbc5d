// Package mutatingpolicies holds the webhooks suite's specs of
// MutatingAdmissionPolicy: patch types and JSONPatch operations, matching and
// binding selection, variables, reinvocation, defaulting of patched objects,
// mutation errors, and custom resources.
package mutatingpolicies
