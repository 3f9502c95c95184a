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

// TestHostName: the official client takes ip:port only; with something listening at
// localhost:PORT the quickstart says so in one line and exits 1 instead of panicking on the
// producer it could not create.
func TestHostName(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	require.NoError(t, err)
	addr := "localhost:" + port

	var out, errOut bytes.Buffer
	require.Equal(t, 1, quickstart(addr, &out, &errOut))
	require.Empty(t, out.String())
	require.Contains(t, errOut.String(), "quickstart: name server address "+addr+": ")
	require.Contains(t, errOut.String(), "give ip:port")
	require.Equal(t, 1, bytes.Count(errOut.Bytes(), []byte("\n")), "one line")
}

// TestAddressList: "a;b" is tried address by address; with none answering the quickstart names
// the whole list.
func TestAddressList(t *testing.T) {
	var addrs []string
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addrs = append(addrs, ln.Addr().String())
		require.NoError(t, ln.Close())
	}
	list := addrs[0] + ";" + addrs[1]
	var out, errOut bytes.Buffer
	require.Equal(t, 1, quickstart(list, &out, &errOut))
	require.Contains(t, errOut.String(), "quickstart: no broker at "+list+" — start one with")
	require.NotContains(t, errOut.String(), "too many colons")
}
