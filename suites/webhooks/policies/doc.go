// Package policies holds the webhooks suite's specs of
// ValidatingAdmissionPolicy and its bindings: matching, params and paramRef,
// validation actions, failure policy, audit annotations, field changes and
// propagation (of mutating policies too), and binding before policy.
package policies
