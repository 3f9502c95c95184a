package mqtest

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Scrape GETs a /metrics URL (10 s at most) and returns the exposition text; it fails the test
// unless the answer is 200 in Prometheus' text format.
func Scrape(t testing.TB, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, resp.Header.Get("Content-Type"), "text/plain")
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

// exporterLine is the line mqbroker and mqnamesrv print once their /metrics endpoint listens.
var exporterLine = regexp.MustCompile(`The metrics exporter serves (http://\S+/metrics)\n`)

// WaitExporterURL waits (10 s at most) until out() holds a binary's "The metrics exporter
// serves URL" line and returns the URL; it fails the test, showing out(), if none comes.
func WaitExporterURL(t testing.TB, out func() string) string {
	t.Helper()
	var url string
	require.Eventually(t, func() bool {
		if m := exporterLine.FindStringSubmatch(out()); m != nil {
			url = m[1]
		}
		return url != ""
	}, 10*time.Second, 5*time.Millisecond, "no metrics exporter line in:\n%s", out())
	return url
}

// MetricSum adds the values of the series of name in an exposition text whose labels include
// want (name{k="v",...} value lines; label values holding no commas or quotes, as the
// project's do), and says whether any series matched.
func MetricSum(text, name string, want map[string]string) (float64, bool) {
	total, found := 0.0, false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name) {
			continue
		}
		rest := line[len(name):]
		labels := map[string]string{}
		switch {
		case strings.HasPrefix(rest, "{"):
			end := strings.Index(rest, "}")
			if end < 0 {
				continue
			}
			for _, kv := range strings.Split(rest[1:end], ",") {
				k, v, _ := strings.Cut(kv, "=")
				labels[k] = strings.Trim(v, `"`)
			}
			rest = rest[end+1:]
		case !strings.HasPrefix(rest, " "):
			continue // a longer name with this prefix
		}
		matches := true
		for k, v := range want {
			matches = matches && labels[k] == v
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if !matches || err != nil {
			continue
		}
		total, found = total+v, true
	}
	return total, found
}

// MetricValue is MetricSum for series that must exist: it fails the test, showing the text,
// when none matches.
func MetricValue(t testing.TB, text, name string, want map[string]string) float64 {
	t.Helper()
	v, ok := MetricSum(text, name, want)
	require.True(t, ok, "no series %s%v in:\n%s", name, want, text)
	return v
}
