package htmlreport_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/admission-conformance/admission-conformance/internal/report/htmlreport"
	"github.com/admission-conformance/admission-conformance/internal/report/htmltest"
)

// ScreenshotDirEnv names a folder where TestReportRendersInChromium leaves
// report.html and report.png (make report-screenshot sets it); by default
// they go to a temporary folder.
const ScreenshotDirEnv = "REPORT_SCREENSHOT_DIR"

// TestReportRendersInChromium renders the synthetic report in a real
// headless Chromium and checks that the plots are visible: the screenshot
// must hold pixels of the colours only the plots use. Without a chromium binary the test is skipped, and says so.
func TestReportRendersInChromium(t *testing.T) {
	browser := htmltest.Browser()
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
	shot := filepath.Join(dir, "report.png")
	img := htmltest.Screenshot(t, browser, page, shot, 1280, 2600)
	// Colours only the drawings use (badges share the green and red): the
	// pale green allowed ranges of the bounds plots, and the blue of a
	// trend's first line.
	bands := htmltest.CountNear(img, 0xda, 0xfb, 0xe1)
	trendLine := htmltest.CountNear(img, 0x09, 0x69, 0xda)
	if bands < 3000 || trendLine < 300 {
		t.Errorf("the screenshot shows %d pixels of allowed ranges and %d of trend lines: the plots are not visible (see %s)", bands, trendLine, shot)
	}
	t.Logf("screenshot %s: %d pixels of allowed ranges, %d of trend lines", shot, bands, trendLine)
}
