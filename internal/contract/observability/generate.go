package observability

// GeneratedFile is the file the derivation writes.
const GeneratedFile = "zz_generated_pinned.go"

//go:generate go run ./gen -o zz_generated_pinned.go
