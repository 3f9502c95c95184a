package rocketmqgo

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/bench"
	"github.com/annotated-rocketmq/rocketmq-go/mq/client/clienttest"
)

// readmeMqbenchLines returns the argument lists of the "go run ./mq/cmd/mqbench ..." lines of
// the README's "## Benchmarks" section, in order.
func readmeMqbenchLines(t *testing.T) [][]string {
	t.Helper()
	var lines [][]string
	for _, line := range strings.Split(readmeSection(t, "## Benchmarks"), "\n") {
		if rest, ok := strings.CutPrefix(line, "go run ./mq/cmd/mqbench "); ok {
			rest, _, _ = strings.Cut(rest, "#")
			lines = append(lines, shellWords(strings.TrimSpace(rest)))
		}
	}
	require.GreaterOrEqual(t, len(lines), 3)
	return lines
}

// readmeSection returns the text of the README's section with this heading line, up to the
// next "## " heading.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	text, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(text), "\n"+heading+"\n")
	require.True(t, ok, "README has the section %q", heading)
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}

// TestReadmeMqbench runs the README's mqbench lines in order against an embedded cluster
// standing in for `go run ./mq/cmd/broker`: the name server address and the topic are the
// cluster's, a producer's -d becomes 300ms and its -count 300, a consumer's -count is what the
// producers sent (and its -d, given or not, 60 s), and -json is added. Each must exit 0 and print one consistent summary; the
// consumer gets every message the producers sent.
func TestReadmeMqbench(t *testing.T) {
	c := clienttest.StartCluster(t, 1, nil)
	topic := "Bench_" + clienttest.Name(t)
	var sent int64
	durationFlag := regexp.MustCompile(`^[0-9]+(ms|s|m)$`)
	for i, args := range readmeMqbenchLines(t) {
		args = append([]string(nil), args...)
		consumer := args[0] == "consumer"
		for j := 1; j < len(args)-1; j++ {
			switch args[j] {
			case "-n":
				args[j+1] = c.NamesrvAddr()
			case "-t":
				args[j+1] = topic
			case "-d":
				require.Regexp(t, durationFlag, args[j+1])
				args[j+1] = "300ms"
				if consumer {
					args[j+1] = "60s" // a bound; the run ends at its -count
				}
			case "-count":
				args[j+1] = "300"
				if consumer {
					args[j+1] = strconv.FormatInt(sent, 10)
				}
			}
		}
		if consumer && !slices.Contains(args, "-d") {
			args = append(args, "-d", "60s") // a bound; the run ends at its -count
		}
		var stdout, stderr bytes.Buffer
		code := bench.Main(context.Background(), append(args, "-json"), &stdout, &stderr)
		require.Equal(t, 0, code, "line %d %q: %s", i, args, stderr.String())
		var s bench.Summary
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &s), "line %d: %s", i, stdout.String())
		require.Positive(t, s.Messages, "line %d", i)
		require.Zero(t, s.SendFailed+s.ResponseFailed, "line %d", i)
		require.LessOrEqual(t, s.Latency.P50, s.Latency.P999, "line %d", i)
		if consumer {
			require.GreaterOrEqual(t, s.Messages, sent, "the consumer gets every message sent")
		} else {
			sent += s.Messages
		}
	}
}
