package webhook

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Paths the server answers.
const (
	// PodsPath holds pods.
	PodsPath = "/pods"
	// ProbePath denies every request with ProbeMessage: the installer
	// proves the configuration is in force with it.
	ProbePath = "/probe"
)

// ProbeMessage is what ProbePath denies with.
const ProbeMessage = "admission-conformance reference initializers webhook is in force"

const maxReviewBytes = 16 << 20

// Server serves the webhook over TLS.
type Server struct {
	http     *http.Server
	address  string
	served   chan struct{}
	src      Source
	settings Settings
	log      logr.Logger
}

// Start listens on address (host:port; port 0 picks one) and serves with
// cert. Close stops it.
func Start(address string, cert tls.Certificate, src Source, s Settings, log logr.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", address)
	if err != nil {
		return nil, fmt.Errorf("initializers webhook: listen: %w", err)
	}
	srv := &Server{address: ln.Addr().String(), served: make(chan struct{}), src: src, settings: s, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc(PodsPath, srv.pods)
	mux.HandleFunc(ProbePath, srv.probe)
	srv.http = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	tlsLn := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	go func() {
		defer close(srv.served)
		if err := srv.http.Serve(tlsLn); !errors.Is(err, http.ErrServerClosed) {
			log.Error(err, "initializers webhook stopped serving")
		}
	}()
	return srv, nil
}

// Address is the host:port the server listens on.
func (s *Server) Address() string { return s.address }

// Close stops the server.
func (s *Server) Close(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	<-s.served
	return err
}

func (s *Server) pods(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return Admit(req, s.src, time.Now(), s.settings)
	})
}

func (s *Server) probe(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return deny(&admissionv1.AdmissionResponse{UID: req.UID}, 403, metav1.StatusReasonForbidden, ProbeMessage)
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, answer func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxReviewBytes))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
		http.Error(w, fmt.Sprintf("not an AdmissionReview request: %v", err), http.StatusBadRequest)
		return
	}
	out := admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: answer(review.Request)}
	b, err := json.Marshal(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if _, err := w.Write(b); err != nil {
		s.log.V(1).Info("answer not delivered", "error", err.Error())
	}
}
