package htmltest

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Browser returns a headless-capable Chromium on PATH, or "" if none.
func Browser() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Screenshot renders page (a file) in headless browser at width×height,
// with no network at all (the pages must not need one), writes the PNG to
// shot and returns it decoded.
func Screenshot(t *testing.T, browser, page, shot string, width, height int) image.Image {
	t.Helper()
	page, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(shot)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--proxy-server=127.0.0.1:9", "--user-data-dir="+t.TempDir(),
		"--screenshot="+shot, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// CountNear counts the pixels within a small distance of a colour.
func CountNear(img image.Image, r, g, b uint8) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr>>8, r) && near(pg>>8, g) && near(pb>>8, b) {
				n++
			}
		}
	}
	return n
}

func near(a uint32, b uint8) bool {
	d := int(a) - int(b)
	return d > -12 && d < 12
}
