// Package matching holds the webhooks suite's specs of what a webhook matches
// (seed 002): rules, operations, scope, match policy, namespace and object
// selectors, match conditions, custom resources and conversion between
// webhooks, and the resources webhooks never see.
package matching
