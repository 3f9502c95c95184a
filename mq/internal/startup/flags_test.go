package startup

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf/conftest"
)

// TestFlags: -c and -p parse; a bad flag and -h print to stderr only; extra arguments are an error.
func TestFlags(t *testing.T) {
	var errOut bytes.Buffer
	f := NewFlags("prog", "config file", &errOut)
	require.NoError(t, f.Parse([]string{"-c", "x.conf", "-p"}))
	require.Equal(t, "x.conf", *f.ConfigFile)
	require.True(t, *f.PrintConfig)

	err := NewFlags("prog", "config file", &errOut).Parse([]string{"-x"})
	require.ErrorIs(t, err, conf.ErrUsage)
	require.Contains(t, errOut.String(), "flag provided but not defined: -x")
	require.Contains(t, errOut.String(), "Usage of prog")

	errOut.Reset()
	f = NewFlags("prog", "", &errOut)
	f.SetUsage("prog [-p]", func(w io.Writer) { fmt.Fprintln(w, "  listenPort=1") })
	require.ErrorIs(t, f.Parse([]string{"-h"}), flag.ErrHelp)
	require.Regexp(t, `^Usage: prog \[-p\]\n  -c string\n(.|\n)*  -p\tprint the effective config.*\n`+
		`Defaults \(keys of a -c file; -p prints them all\):\n  listenPort=1\n$`, errOut.String())
	require.EqualError(t, NewFlags("prog", "", &errOut).Parse([]string{"extra"}), `unexpected arguments ["extra"]`)
}

func TestPrintConfig(t *testing.T) {
	type a struct {
		Port int `prop:"listenPort"`
	}
	var out bytes.Buffer
	k := DefaultServerKeys()
	PrintConfig(&out, &a{Port: 1}, &k)
	require.Equal(t, "listenPort=1\nbindAddress=0.0.0.0\nserverWorkerThreads=8\nserverChannelMaxIdleTimeSeconds=120\n"+
		"com.rocketmq.remoting.frameMaxLength=16777216\nserverChannelMaxInflight=256\n", out.String())
}

// TestExitCode: 0, 2 or 1, and the error printed once with one prefix only for 1.
func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
		out  string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{fmt.Errorf("wrapped: %w", ErrPrintedConfig), 0, ""},
		{fmt.Errorf("%w: bad", conf.ErrUsage), 2, ""},
		{errors.New("read config file: no such file"), 1, "prog: read config file: no such file\n"},
	} {
		var errOut bytes.Buffer
		require.Equal(t, c.code, ExitCode("prog", c.err, &errOut), c.err)
		require.Equal(t, c.out, errOut.String(), c.err)
	}
}

// TestApplyConfigFile: the file's keys land in the configs, unknown ones come back sorted,
// and errors name the file.
func TestApplyConfigFile(t *testing.T) {
	type a struct {
		Port int `prop:"listenPort"`
	}
	var cfg a
	k := DefaultServerKeys()
	file := conftest.Write(t, "x.conf", "listenPort=7", "bindAddress=127.0.0.1", "zeta=1", "alpha=2")
	props, unknown, err := ApplyConfigFile(file, &cfg, &k)
	require.NoError(t, err)
	require.Equal(t, 7, cfg.Port)
	require.Equal(t, "127.0.0.1", k.BindAddress)
	require.Equal(t, []string{"alpha", "zeta"}, unknown)
	require.Equal(t, "2", props["alpha"])

	_, _, err = ApplyConfigFile(filepath.Join(t.TempDir(), "missing.conf"), &cfg)
	require.ErrorContains(t, err, "read config file: ")
	bad := conftest.Write(t, "bad.conf", "listenPort=abc")
	_, _, err = ApplyConfigFile(bad, &cfg)
	require.ErrorContains(t, err, "config file "+bad+": ")
	bad = conftest.Write(t, "bad.conf", "justoneword")
	_, _, err = ApplyConfigFile(bad, &cfg)
	require.ErrorContains(t, err, "config file "+bad+": ")
}
