package v1alpha1

import (
	_ "embed"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed crd.yaml
var crdYAML []byte

// CRD returns the InitializerConfiguration CustomResourceDefinition.
func CRD() (*apiextensionsv1.CustomResourceDefinition, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(crdYAML, &crd); err != nil {
		return nil, fmt.Errorf("decode the InitializerConfiguration CRD: %w", err)
	}
	return &crd, nil
}
