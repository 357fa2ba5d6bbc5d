// Package v1alpha1 is the API of the project's reference implementation of
// seed 002's initializers: the InitializerConfiguration custom resource
// (group initializers.admission-conformance.io), the names of what the
// implementation installs, and the marks it leaves on the pods it holds (a
// label, an annotation listing the assigned initializers, one scheduling
// gate per initializer). Controllers that act as initializers, and specs
// that check them, read a pod's state through Assigned, Remaining and Head.
package v1alpha1
