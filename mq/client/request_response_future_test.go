package client

import (
	"bytes"
	"compress/zlib"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestReceiveReplyMessage pins ClientRemotingProcessor#receiveReplyMessage: a pushed reply
// (PUSH_REPLY_MESSAGE_TO_CLIENT) completes the future of its CORRELATION_ID with topic, body
// (inflated when sysFlag says compressed), properties and ARRIVE_TIME, and removes it; a reply
// no request waits for is answered SUCCESS and completes nothing; a header missing its fields
// or a compressed body that does not inflate is answered SYSTEM_ERROR — never a panic.
func TestReceiveReplyMessage(t *testing.T) {
	inst := newTestInstance(t, "127.0.0.1:1")
	proc := &ClientRemotingProcessor{instance: inst}
	push := func(h protocol.ReplyMessageRequestHeader, body []byte) *remoting.RemotingCommand {
		resp, err := proc.ProcessRequest(nil, remoting.NewRequest(protocol.PushReplyMessageToClient, protocol.EncodeHeader(&h), body))
		require.NoError(t, err)
		return resp
	}
	header := func(id string, sysFlag int32) protocol.ReplyMessageRequestHeader {
		return protocol.ReplyMessageRequestHeader{ProducerGroup: "g", Topic: "DefaultCluster_REPLY_TOPIC", DefaultTopic: "TBW102",
			SysFlag: sysFlag, Properties: primitive.MarshalProperties(map[string]string{primitive.PropertyCorrelationID: id, "k": "v"}),
			BornHost: "127.0.0.1:1", StoreHost: "127.0.0.1:2"}
	}

	f := Requests().Put("id-1")
	require.Equal(t, int32(protocol.Success), push(header("id-1", 0), []byte("plain")).Code)
	<-f.Done()
	m, err := f.Result()
	require.NoError(t, err)
	require.Equal(t, "plain", string(m.Body))
	require.Equal(t, "DefaultCluster_REPLY_TOPIC", m.Topic)
	require.Equal(t, "v", m.GetProperty("k"))
	require.NotEmpty(t, m.GetProperty(primitive.PropertyReplyMessageArriveTime))
	require.Nil(t, Requests().take("id-1"), "the future is removed")

	var zb bytes.Buffer
	w := zlib.NewWriter(&zb)
	_, _ = w.Write([]byte("inflated"))
	require.NoError(t, w.Close())
	f = Requests().Put("id-2")
	require.Equal(t, int32(protocol.Success), push(header("id-2", primitive.CompressedFlag), zb.Bytes()).Code)
	<-f.Done()
	m, _ = f.Result()
	require.Equal(t, "inflated", string(m.Body))

	require.Equal(t, int32(protocol.Success), push(header("nobody-waits", 0), nil).Code)

	f = Requests().Put("id-3")
	defer Requests().Remove("id-3")
	resp := push(header("id-3", primitive.CompressedFlag), []byte("not zlib"))
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	resp, err = proc.ProcessRequest(nil, remoting.NewRequest(protocol.PushReplyMessageToClient, map[string]string{"topic": "t"}, nil))
	require.NoError(t, err)
	require.Equal(t, int32(protocol.SystemError), resp.Code)
	require.Contains(t, resp.Remark, "producerGroup")
	select {
	case <-f.Done():
		t.Fatal("a bad push completed a future")
	default:
	}
}
