// Package failure holds the webhooks suite's specs of failing webhooks (seed
// 002): failure policies for every failure mode, fail-open timing and what it
// leaves observable, the request's deadline shared by the chain, and that an
// unready webhook does not block the cluster.
package failure
