// Package apiboundary is the public API's boundary: which packages a spec
// author imports, and that none of them reaches the harness's internals.
// The rule on each import is Forbidden; Analyzer reports each crossing
// import as `go vet` does (make lint runs it through cmd/apiboundary-vet),
// and the tests check the whole chains of imports, the list of public
// packages and the vendor's example suite.
//
//   - Public packages are those under framework/, plus conformance (the door
//     to the command line for a binary of one's own). The list is kept in
//     the test: exposing or hiding a package is a deliberate change of that
//     list.
//   - No package under framework/ imports, directly or through other
//     packages of this module (reference/ included), anything under
//     internal/. conformance alone may: it runs the engine.
//   - framework/ may import reference/; reference/ imports nothing from
//     framework/ or internal/ (the reference implementations stand alone).
//   - examples/vendor-suite, a module of its own, imports only public
//     packages, and repeats go.mod's Kubernetes replace block as it is.
package apiboundary
