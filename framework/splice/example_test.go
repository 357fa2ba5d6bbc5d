package splice_test

import (
	"fmt"
	"io"
	"net"

	"github.com/admission-conformance/admission-conformance/framework/splice"
)

// A relay between a client and a server: what the client sends reaches the
// server untouched, and the server's answer comes back.
func ExampleJoin() {
	server, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() {
		c, _ := server.Accept()
		defer c.Close()
		got, _ := io.ReadAll(c) // until the client's side ends
		fmt.Fprintf(c, "got %q", got)
	}()
	relay, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() {
		in, _ := relay.Accept()
		out, _ := net.Dial("tcp", server.Addr().String())
		splice.Join(in, out)
	}()
	c, _ := net.Dial("tcp", relay.Addr().String())
	fmt.Fprint(c, "hello")
	_ = c.(*net.TCPConn).CloseWrite()
	answer, _ := io.ReadAll(c)
	fmt.Println(string(answer))
	// Output: got "hello"
}
