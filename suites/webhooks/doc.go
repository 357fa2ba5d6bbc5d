// Package webhooks checks the webhook contract of seed 002 (dynamic admission
// configuration): failure policies and their timeouts, what matches, that a
// configuration change is enforced within its bound on every apiserver, that
// an unready webhook does not block the cluster, dry runs, AdmissionReview
// versions, and that webhooks cannot lock configurations. One file per
// behaviour.
package webhooks
