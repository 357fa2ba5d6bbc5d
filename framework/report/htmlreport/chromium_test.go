package htmlreport_test

import (
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/admission-conformance/admission-conformance/framework/report/htmlreport"
)

// ScreenshotDirEnv names a folder where TestReportRendersInChromium leaves
// report.html and report.png (make report-screenshot sets it); by default
// they go to a temporary folder.
const ScreenshotDirEnv = "REPORT_SCREENSHOT_DIR"

// TestReportRendersInChromium renders the synthetic report in a real
// headless Chromium and checks that the plots are visible: the screenshot
// must hold pixels of the colours only the plots use. Without a chromium binary the test is skipped, and says so.
func TestReportRendersInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium on PATH (apt-get install chromium): the HTML report was not checked in a browser")
	}
	dir := os.Getenv(ScreenshotDirEnv)
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	page, err := htmlreport.Write(dir, synthetic())
	if err != nil {
		t.Fatal(err)
	}
	page, _ = filepath.Abs(page)
	shot := filepath.Join(dir, "report.png")
	_ = os.Remove(shot)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// No network at all: the page must not need it.
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--proxy-server=127.0.0.1:9", "--user-data-dir="+t.TempDir(),
		"--screenshot="+shot, "--window-size=1280,2600", "file://"+page)
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
	// Colours only the drawings use (badges share the green and red): the
	// pale green allowed ranges of the bounds plots, and the blue of a
	// trend's first line.
	bands := countNear(img, 0xda, 0xfb, 0xe1)
	trendLine := countNear(img, 0x09, 0x69, 0xda)
	if bands < 3000 || trendLine < 300 {
		t.Errorf("the screenshot shows %d pixels of allowed ranges and %d of trend lines: the plots are not visible (see %s)", bands, trendLine, shot)
	}
	t.Logf("screenshot %s: %d pixels of allowed ranges, %d of trend lines", shot, bands, trendLine)
}

// countNear counts pixels within a small distance of a colour.
func countNear(img image.Image, r, g, b uint8) int {
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
