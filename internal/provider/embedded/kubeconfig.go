package embedded

import (
	"net/url"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes an admin kubeconfig for the in-process scheduler and
// controller manager; it also lets a person look at a kept cluster.
func writeKubeconfig(path, server string, f pkiFiles) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["embedded"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: f.caCert}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificate: f.adminCert, ClientKey: f.adminKey}
	cfg.Contexts["embedded"] = &clientcmdapi.Context{Cluster: "embedded", AuthInfo: "admin"}
	cfg.CurrentContext = "embedded"
	return clientcmd.WriteToFile(*cfg, path)
}

func hostPort(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return rawURL
	}
	return u.Host
}
