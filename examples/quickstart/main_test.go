package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/annotated-rocketmq/rocketmq-go/mq/broker"
	"github.com/annotated-rocketmq/rocketmq-go/mq/embedded"
	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
	rmqerrors "github.com/apache/rocketmq-client-go/v2/errors"
	"github.com/apache/rocketmq-client-go/v2/primitive"
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

// TestSendStatusName: the four statuses the official client returns as numbers are printed by
// RocketMQ's names; a value outside them is shown as a number, not as one of them.
func TestSendStatusName(t *testing.T) {
	require.Equal(t, "SEND_OK", sendStatusName(primitive.SendOK))
	require.Equal(t, "FLUSH_DISK_TIMEOUT", sendStatusName(primitive.SendFlushDiskTimeout))
	require.Equal(t, "FLUSH_SLAVE_TIMEOUT", sendStatusName(primitive.SendFlushSlaveTimeout))
	require.Equal(t, "SLAVE_NOT_AVAILABLE", sendStatusName(primitive.SendSlaveNotAvailable))
	require.Equal(t, "SendStatus(7)", sendStatusName(primitive.SendStatus(7)))
	require.Contains(t, sendStatusMeaning(primitive.SendFlushSlaveTimeout), "syncFlushTimeout")
	require.Contains(t, sendStatusMeaning(primitive.SendSlaveNotAvailable), "no slave connected")
}

// TestSendErrorHint: a timeout (also wrapped) points at a late answer and the README's master and
// slave section, not at a missing broker; a missing route asks for a master; other errors get no
// hint.
func TestSendErrorHint(t *testing.T) {
	for _, err := range []error{rmqerrors.ErrRequestTimeout, fmt.Errorf("invoke: %w", rmqerrors.ErrRequestTimeout)} {
		h := sendErrorHint(err)
		require.Contains(t, h, "did not answer within the client's 3 s send timeout")
		require.Contains(t, h, `README "Master and slave"`)
		require.NotContains(t, h, "is a broker registered")
	}
	require.Contains(t, sendErrorHint(errors.New("topic=QuickstartTopic route info not found")), "is a master broker registered")
	require.Empty(t, sendErrorHint(errors.New("connection refused")))
}

// TestSlaveNotAvailable: against a SYNC_MASTER with no slave (our broker, on loopback) the send
// is answered SLAVE_NOT_AVAILABLE: the quickstart prints the status by name, says on stderr in
// one line that the message is stored but not replicated, still receives it, and exits 1.
func TestSlaveNotAvailable(t *testing.T) {
	c, err := embedded.Start(embedded.Config{Dir: t.TempDir(),
		Customize: func(_ int, _ *broker.BrokerConfig, sc *store.MessageStoreConfig) {
			sc.BrokerRole = store.SyncMaster
			embedded.SmallFiles(sc)
		}})
	require.NoError(t, err)
	defer c.Shutdown()

	var out, errOut bytes.Buffer
	status := quickstart(c.NamesrvAddr(), &out, &errOut)
	outputs := fmt.Sprintf("stdout:\n%s\nstderr:\n%s", &out, &errOut)
	require.Equal(t, 1, status, outputs)
	require.Contains(t, out.String(), "sent: SLAVE_NOT_AVAILABLE SendResult [sendStatus=3, ", outputs)
	require.Contains(t, out.String(), "received: hello, rocketmq-go", outputs)
	require.Equal(t, "quickstart: send status SLAVE_NOT_AVAILABLE: "+sendStatusMeaning(primitive.SendSlaveNotAvailable)+"\n", errOut.String(), outputs)
}
