// Package pluginapi is the gRPC API of node-local pod admission plugins of
// type "grpc". The generated code is checked in; regenerate with
//
//	go generate ./reference/nodeadmission/pluginapi/v1alpha1/
//
// which needs protoc, protoc-gen-go and protoc-gen-go-grpc on PATH (versions
// in the header of the generated files).
package pluginapi

//go:generate protoc --go_out=. --go_opt=paths=source_relative --go-grpc_out=. --go-grpc_opt=paths=source_relative pluginapi.proto
