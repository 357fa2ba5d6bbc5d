// Package configurations holds the webhooks suite's specs of the configuration
// objects themselves (seed 002): webhook configurations' and admission
// policies' defaults and validation, that a change to one is enforced within
// its bound on every apiserver, service references, and that webhooks and
// policies cannot block the configurations that could remove them.
package configurations
