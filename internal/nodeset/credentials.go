package nodeset

import (
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/admission-conformance/admission-conformance/framework/pki"
)

// writeKubeconfig gives a node its own identity, system:node:<name> in group
// system:nodes, so the apiserver's Node authorizer treats it as that node,
// and in HollowNodesGroup, which the harness's RBAC grant names.
func writeKubeconfig(dir, name, server, caCertFile string, ca *pki.CA) (string, error) {
	pair, err := ca.Client("system:node:"+name, "system:nodes", HollowNodesGroup)
	if err != nil {
		return "", err
	}
	cert, key, err := pair.Write(dir, "kubelet-client")
	if err != nil {
		return "", err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["cluster"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: caCertFile}
	cfg.AuthInfos["kubelet"] = &clientcmdapi.AuthInfo{ClientCertificate: cert, ClientKey: key}
	cfg.Contexts["kubelet"] = &clientcmdapi.Context{Cluster: "cluster", AuthInfo: "kubelet"}
	cfg.CurrentContext = "kubelet"
	path := filepath.Join(dir, "kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}
