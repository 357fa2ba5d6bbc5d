package engine

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

// overLiveLine writes a line of its own over the live line on the screen
// (clearing it first), and as it is to the log.
type overLiveLine struct {
	screen *os.File
	log    io.Writer
}

func (o overLiveLine) Write(p []byte) (int, error) {
	_, _ = o.screen.WriteString("\r\x1b[K" + string(p))
	return o.log.Write(p)
}
