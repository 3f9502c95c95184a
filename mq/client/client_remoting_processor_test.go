package client

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// checkingProducer is a fake producer that also answers check-backs: it records them.
type checkingProducer struct {
	*fakeProducer
	mu     sync.Mutex
	checks []*primitive.MessageExt
}

func (p *checkingProducer) CheckTransactionState(_ string, msg *primitive.MessageExt, _ *protocol.CheckTransactionStateRequestHeader) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.checks = append(p.checks, msg)
}

// TestCheckTransactionStateBadInput pins ClientRemotingProcessor#checkTransactionState on what a
// broker (or anyone on the connection) may send: a header without its fields, a body that is no
// message record (empty, truncated, garbage), a message without PGROUP, or of a group this
// client has no producer for, is an error or a dropped request — never a panic and never a call
// to the producer. A well-formed request reaches the producer of PGROUP with TransactionID set
// to UNIQ_KEY. CHECK_TRANSACTION_STATE is one way: nothing is answered either way.
func TestCheckTransactionStateBadInput(t *testing.T) {
	inst := newTestInstance(t, "127.0.0.1:1")
	p := &checkingProducer{fakeProducer: newFakeProducer()}
	require.True(t, inst.RegisterProducer("pg", p))
	proc := &ClientRemotingProcessor{instance: inst}

	msg := func(props map[string]string) []byte {
		m := &primitive.MessageExt{}
		m.Topic, m.QueueID, m.Body = "TopicTest", 1, []byte("order")
		m.BornHost, m.StoreHost = "127.0.0.1:50000", "127.0.0.1:10911"
		m.Properties = props
		body, err := primitive.EncodeMessage(m)
		require.NoError(t, err)
		return body
	}
	good := msg(map[string]string{primitive.PropertyProducerGroup: "pg", primitive.PropertyUniqClientMessageIDKeyIdx: "UNIQ-1"})
	header := protocol.EncodeHeader(&protocol.CheckTransactionStateRequestHeader{TranStateTableOffset: 3, CommitLogOffset: 1323})
	for _, c := range []struct {
		name    string
		ext     map[string]string
		body    []byte
		wantErr bool
	}{
		{"no header", nil, good, true},
		{"absurd offset", map[string]string{"tranStateTableOffset": "x", "commitLogOffset": "1"}, good, true},
		{"no body", header, nil, true},
		{"truncated body", header, good[:len(good)/2], true},
		{"garbage body", header, []byte("not a message record at all, not even close"), true},
		{"no producer group", header, msg(map[string]string{primitive.PropertyUniqClientMessageIDKeyIdx: "UNIQ-2"}), false},
		{"unknown producer group", header, msg(map[string]string{primitive.PropertyProducerGroup: "other"}), false},
	} {
		req := remoting.NewRequest(protocol.CheckTransactionState, c.ext, c.body)
		req.MarkOneway()
		var resp *remoting.RemotingCommand
		var err error
		require.NotPanics(t, func() { resp, err = proc.ProcessRequest(&remoting.Channel{}, req) }, c.name)
		require.Nil(t, resp, c.name)
		if c.wantErr {
			require.Error(t, err, c.name)
		} else {
			require.NoError(t, err, c.name)
		}
	}
	require.Empty(t, p.checks, "no bad request reached the producer")

	req := remoting.NewRequest(protocol.CheckTransactionState, header, good)
	req.MarkOneway()
	resp, err := proc.ProcessRequest(&remoting.Channel{}, req)
	require.NoError(t, err)
	require.Nil(t, resp, "the answer is a new END_TRANSACTION, not a response")
	require.Len(t, p.checks, 1)
	require.Equal(t, "UNIQ-1", p.checks[0].TransactionID)
	require.Equal(t, "TopicTest", p.checks[0].Topic)
}
