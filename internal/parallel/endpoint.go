package parallel

import (
	"fmt"
	"time"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Endpoint is a rest.Config as the attach file carries it: where the
// apiserver is and how to authenticate, by file paths or inline data, as the
// provider set it up.
type Endpoint struct {
	Host    string `json:"host"`
	APIPath string `json:"apiPath,omitempty"`

	Insecure   bool     `json:"insecure,omitempty"`
	ServerName string   `json:"serverName,omitempty"`
	CAFile     string   `json:"caFile,omitempty"`
	CertFile   string   `json:"certFile,omitempty"`
	KeyFile    string   `json:"keyFile,omitempty"`
	CAData     []byte   `json:"caData,omitempty"`
	CertData   []byte   `json:"certData,omitempty"`
	KeyData    []byte   `json:"keyData,omitempty"`
	NextProtos []string `json:"nextProtos,omitempty"`

	Username        string `json:"username,omitempty"`
	Password        string `json:"password,omitempty"`
	BearerToken     string `json:"bearerToken,omitempty"`
	BearerTokenFile string `json:"bearerTokenFile,omitempty"`

	ImpersonateUser   string              `json:"impersonateUser,omitempty"`
	ImpersonateUID    string              `json:"impersonateUID,omitempty"`
	ImpersonateGroups []string            `json:"impersonateGroups,omitempty"`
	ImpersonateExtra  map[string][]string `json:"impersonateExtra,omitempty"`

	AuthProvider *clientcmdapi.AuthProviderConfig `json:"authProvider,omitempty"`
	ExecProvider *clientcmdapi.ExecConfig         `json:"execProvider,omitempty"`

	UserAgent          string        `json:"userAgent,omitempty"`
	DisableCompression bool          `json:"disableCompression,omitempty"`
	QPS                float32       `json:"qps,omitempty"`
	Burst              int           `json:"burst,omitempty"`
	Timeout            time.Duration `json:"timeout,omitempty"`
}

// EndpointOf captures c. A config that carries code (a dialer, a transport,
// a proxy function, a rate limiter) cannot be handed to another process.
func EndpointOf(c *rest.Config) (Endpoint, error) {
	switch {
	case c.Transport != nil, c.WrapTransport != nil:
		return Endpoint{}, fmt.Errorf("the config for %s has a custom transport", c.Host)
	case c.Dial != nil:
		return Endpoint{}, fmt.Errorf("the config for %s has a custom dialer", c.Host)
	case c.Proxy != nil:
		return Endpoint{}, fmt.Errorf("the config for %s goes through a proxy", c.Host)
	case c.RateLimiter != nil:
		return Endpoint{}, fmt.Errorf("the config for %s has its own rate limiter", c.Host)
	}
	e := Endpoint{
		Host: c.Host, APIPath: c.APIPath,
		Insecure: c.Insecure, ServerName: c.ServerName,
		CAFile: c.CAFile, CertFile: c.CertFile, KeyFile: c.KeyFile,
		CAData: c.CAData, CertData: c.CertData, KeyData: c.KeyData, NextProtos: c.NextProtos,
		Username: c.Username, Password: c.Password, BearerToken: c.BearerToken, BearerTokenFile: c.BearerTokenFile,
		ImpersonateUser: c.Impersonate.UserName, ImpersonateUID: c.Impersonate.UID,
		ImpersonateGroups: c.Impersonate.Groups, ImpersonateExtra: c.Impersonate.Extra,
		AuthProvider: c.AuthProvider, ExecProvider: c.ExecProvider,
		UserAgent: c.UserAgent, DisableCompression: c.DisableCompression,
		QPS: c.QPS, Burst: c.Burst, Timeout: c.Timeout,
	}
	if c.ExecProvider != nil && c.ExecProvider.Config != nil {
		return Endpoint{}, fmt.Errorf("the config for %s passes an object to its exec credential plugin", c.Host)
	}
	return e, nil
}

// Config is the rest.Config e describes.
func (e Endpoint) Config() *rest.Config {
	c := &rest.Config{
		Host: e.Host, APIPath: e.APIPath,
		TLSClientConfig: rest.TLSClientConfig{Insecure: e.Insecure, ServerName: e.ServerName,
			CAFile: e.CAFile, CertFile: e.CertFile, KeyFile: e.KeyFile,
			CAData: e.CAData, CertData: e.CertData, KeyData: e.KeyData, NextProtos: e.NextProtos},
		Username: e.Username, Password: e.Password, BearerToken: e.BearerToken, BearerTokenFile: e.BearerTokenFile,
		Impersonate: rest.ImpersonationConfig{UserName: e.ImpersonateUser, UID: e.ImpersonateUID,
			Groups: e.ImpersonateGroups, Extra: e.ImpersonateExtra},
		AuthProvider: e.AuthProvider, ExecProvider: e.ExecProvider,
		UserAgent: e.UserAgent, DisableCompression: e.DisableCompression,
		QPS: e.QPS, Burst: e.Burst, Timeout: e.Timeout,
	}
	return c
}
