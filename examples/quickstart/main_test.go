package main

import (
	"bytes"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoBroker: against a closed port the quickstart says where it looked and how to start a
// broker, in one line, and exits 1 (no panic, no stack trace).
func TestNoBroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // now nothing listens there

	var out, errOut bytes.Buffer
	require.Equal(t, 1, quickstart(addr, &out, &errOut))
	require.Empty(t, out.String())
	require.Contains(t, errOut.String(), "quickstart: no broker at "+addr+" — start one with `go run ./mq/cmd/broker`")
	require.Equal(t, 1, bytes.Count(errOut.Bytes(), []byte("\n")), "one line")
}
