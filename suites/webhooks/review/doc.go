// Package review holds the webhooks suite's specs of the AdmissionReview
// exchange (seed 002): what a request carries (content, subresources, user
// info, versions), what a webhook may answer (forms, patches, status,
// warnings, audit annotations), and dry runs.
package review
