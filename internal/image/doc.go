// Package image writes container images without a container engine: an OCI
// image layout in one tar archive (what `ctr images import`, skopeo's
// oci-archive: transport and registries' push tools read) that also carries
// Docker's manifest.json, so `docker load` reads the same file.
//
// Layers are uncompressed tars with fixed timestamps, written in a stable
// order, so the same inputs give the same digests.
package image
