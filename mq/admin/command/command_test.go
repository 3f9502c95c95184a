package command_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin/command"
)

func itoa(n int32) string   { return strconv.Itoa(int(n)) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// run runs mqadmin without a cluster.
func run(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := command.Main(args, command.Env{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }})
	return code, out.String(), errOut.String()
}

// TestHelp: no arguments lists every subcommand; "-h" after a subcommand and "help <sub>"
// print its usage with RocketMQ's option letters and exit 0.
func TestHelp(t *testing.T) {
	code, out, _ := run()
	require.Equal(t, command.ExitOK, code)
	for _, c := range command.Commands() {
		require.Contains(t, out, "   "+c.Name+" ")
	}
	code, out, _ = run("topicStatus", "-h")
	require.Equal(t, command.ExitOK, code)
	require.Contains(t, out, "usage: mqadmin topicStatus [-n <arg>] -t <arg> [-h]\n")
	require.Contains(t, out, "-t,--topic <arg>")
	code, out2, _ := run("help", "topicStatus")
	require.Equal(t, command.ExitOK, code)
	require.Equal(t, out, out2)
}

// TestEverySubcommandHasHelp: "-h" on each subcommand prints its usage line and options and
// exits 0, without a name server.
func TestEverySubcommandHasHelp(t *testing.T) {
	for _, c := range command.Commands() {
		code, out, errOut := run(c.Name, "-h")
		require.Equal(t, command.ExitOK, code, "%s: %s", c.Name, errOut)
		require.True(t, strings.HasPrefix(out, "usage: mqadmin "+c.Name+" "), "%s:\n%s", c.Name, out)
		require.Contains(t, out, c.Desc)
		require.Contains(t, out, "-h,--help")
	}
}

// TestUsageErrors: an unknown subcommand, an unknown flag, a missing required option and a
// missing name server exit 2 with the reason on stderr; a name server that cannot be reached
// exits 1.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"noSuchCommand"}, command.ExitUsage, "The sub command noSuchCommand not exist."},
		{[]string{"topicList", "-x"}, command.ExitUsage, "flag provided but not defined: -x"},
		{[]string{"topicStatus", "-n", "127.0.0.1:1"}, command.ExitUsage, "Missing required option: t"},
		{[]string{"topicList"}, command.ExitUsage, "no name server address"},
		{[]string{"updateTopic", "-n", "127.0.0.1:1", "-t", "T", "-c", "C", "-r", "eight"}, command.ExitUsage, `invalid value "eight" for flag -r: not a number`},
		{[]string{"queryMsgByOffset", "-n", "127.0.0.1:1", "-t", "T", "-b", "broker-a", "-i", "0"}, command.ExitUsage, "Missing required option: o"},
		{[]string{"topicList", "-n", "127.0.0.1:1"}, command.ExitFailed, "topicList command failed"},
		{[]string{"topicList", "-n", "127.0.0.1:1", "extra"}, command.ExitUsage, "unexpected arguments"},
	} {
		code, _, errOut := run(tc.args...)
		require.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		require.Contains(t, errOut, tc.want, "%v", tc.args)
	}
}
