package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// terminal returns w as a terminal file, or nil when w is not a terminal
// (a pipe, a file, a CI log): then progress is plain lines.
func terminal(w io.Writer) *os.File {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return f
}

// terminalWidth reads the width at each call, so a resized window gets a
// line that fits.
func terminalWidth(f *os.File) func() int {
	return func() int {
		w, _, err := term.GetSize(int(f.Fd()))
		if err != nil {
			return 0
		}
		return w
	}
}
