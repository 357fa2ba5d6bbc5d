// Package policycel holds the webhooks suite's specs of the CEL that admission
// policies and match conditions evaluate: libraries, variables and their
// types, type checking, messages and their limits, errors and the cost budget.
package policycel
