package release

//go:generate go run ../../../hack/release-inventory -o zz_generated_pinned.go -stored .
