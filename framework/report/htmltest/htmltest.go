// Package htmltest parses and walks the HTML pages the report packages
// render, for their tests.
package htmltest

import (
	"bytes"
	"io"
	"testing"

	"golang.org/x/net/html"
)

// Render runs render into a buffer and parses the page: its text and its
// document.
func Render(t *testing.T, render func(io.Writer) error) (string, *html.Node) {
	t.Helper()
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), doc
}

// Walk calls visit for every element below n, n included.
func Walk(n *html.Node, visit func(*html.Node)) {
	if n.Type == html.ElementNode {
		visit(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		Walk(c, visit)
	}
}

// Attr is the value of n's attribute key, or "".
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
