package client

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/primitive"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/remotingtest"
)

func sendResponse(code int32, ext map[string]string) *remoting.RemotingCommand {
	r := remoting.NewResponse(code, "remark")
	r.ExtFields = ext
	return r
}

// MQClientAPIImpl#processSendResponse: SUCCESS, FLUSH_DISK_TIMEOUT (10), FLUSH_SLAVE_TIMEOUT (12)
// and SLAVE_NOT_AVAILABLE (11) are results; any other code is a *remoting.RemoteError with the code,
// remark and address. MsgID is the message's UNIQ_KEY; MSG_REGION defaults to DefaultRegion;
// TRACE_ON is off only for "false".
func TestProcessSendResponse(t *testing.T) {
	api := &MQClientAPI{}
	msg := &primitive.Message{Topic: "T", Properties: map[string]string{"UNIQ_KEY": "U1"}}
	ext := map[string]string{"msgId": "0A00000900002A9F0000000000001000", "queueId": "3", "queueOffset": "42"}
	for _, tc := range []struct {
		code int32
		want SendStatus
	}{
		{0, SendOK}, {10, FlushDiskTimeout}, {12, FlushSlaveTimeout}, {11, SlaveNotAvailable},
	} {
		res, err := api.ProcessSendResponse("broker-a", msg, nil, sendResponse(tc.code, ext), "10.0.0.9:10911")
		require.NoError(t, err)
		require.Equal(t, &SendResult{SendStatus: tc.want, MsgID: "U1", OffsetMsgID: ext["msgId"],
			MessageQueue: primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 3},
			QueueOffset:  42, RegionID: "DefaultRegion", TraceOn: true}, res)
	}
	for _, code := range []int32{1, 2, 13, 14, 16, 17} {
		_, err := api.ProcessSendResponse("broker-a", msg, nil, sendResponse(code, ext), "10.0.0.9:10911")
		var re *remoting.RemoteError
		require.True(t, errors.As(err, &re), "code %d", code)
		require.Equal(t, &remoting.RemoteError{Code: code, Remark: "remark", Addr: "10.0.0.9:10911"}, re)
		require.Equal(t, fmt.Sprintf("CODE: %d DESC: remark BROKER: 10.0.0.9:10911", code), err.Error(),
			"Java's MQBrokerException message, the broker named")
	}
	withRegion := map[string]string{"msgId": "A,B", "queueId": "0", "queueOffset": "7", "MSG_REGION": "r1", "TRACE_ON": "false"}
	batch := &MessageBatch{Messages: []*primitive.Message{
		{Properties: map[string]string{"UNIQ_KEY": "U1"}}, {Properties: map[string]string{"UNIQ_KEY": "U2"}}}}
	batch.Topic = "T"
	res, err := api.ProcessSendResponse("broker-a", &batch.Message, batch, sendResponse(0, withRegion), "x")
	require.NoError(t, err)
	require.Equal(t, "U1,U2", res.MsgID)
	require.Equal(t, "A,B", res.OffsetMsgID)
	require.Equal(t, "r1", res.RegionID)
	require.False(t, res.TraceOn)
	_, err = api.ProcessSendResponse("broker-a", msg, nil, sendResponse(0, map[string]string{"queueId": "1"}), "x")
	require.ErrorIs(t, err, protocol.ErrMissingField)
}

// ErrorKind names failures without addresses, for step lines.
func TestErrorKind(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("x: %w", &remoting.RemoteError{Code: 17, Addr: "10.0.0.9:10911"}), "code=17"},
		{&remoting.RemoteError{Code: 2}, "code=2"},
		{fmt.Errorf("%w: x", ErrCallTimeout), "callTimeout"},
		{fmt.Errorf("%w: x", remoting.ErrTimeout), "timeout"},
		{context.DeadlineExceeded, "timeout"},
		{fmt.Errorf("%w: x", remoting.ErrConnect), "connect"},
		{fmt.Errorf("%w: x", remoting.ErrChannelClosed), "channelClosed"},
		{remoting.ErrShutdown, "shutdown"},
		{errors.New("other"), "error"},
	} {
		require.Equal(t, tc.want, ErrorKind(tc.err), "%v", tc.err)
	}
}

// A route query goes to the next name server when one cannot be reached, and sticks to the one
// that answered (NettyRemotingClient#getAndCreateNameserverChannel). TOPIC_NOT_EXIST is an error
// wrapping ErrNoRouteInfo and the remote code; no name server at all is ErrNoNameServer.
func TestGetTopicRouteInfoFromNameServer(t *testing.T) {
	ns := startFakeNamesrv(t)
	ns.setRoute("T", route(routeBroker{"broker-a", 4, 6, map[int64]string{0: "10.0.0.1:10911"}}))
	api := NewMQClientAPI(DefaultClientConfig(), Options{}, nil, nil)
	t.Cleanup(api.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := api.GetTopicRouteInfoFromNameServer(ctx, "T", true)
	require.ErrorIs(t, err, ErrNoNameServer)

	api.UpdateNameServerAddressList([]string{remotingtest.DeadAddr(t), ns.addr()})
	for range 3 {
		r, err := api.GetTopicRouteInfoFromNameServer(ctx, "T", true)
		require.NoError(t, err)
		require.Equal(t, "10.0.0.1:10911", r.BrokerDatas[0].MasterAddr())
	}
	api.nsMu.Lock()
	require.Equal(t, ns.addr(), api.chosen)
	api.nsMu.Unlock()

	_, err = api.GetTopicRouteInfoFromNameServer(ctx, "Missing", true)
	require.ErrorIs(t, err, ErrNoRouteInfo)
	var re *remoting.RemoteError
	require.True(t, errors.As(err, &re))
	require.Equal(t, int32(protocol.TopicNotExist), re.Code)

	api.UpdateNameServerAddressList([]string{remotingtest.DeadAddr(t)})
	_, err = api.GetTopicRouteInfoFromNameServer(ctx, "T", true)
	require.ErrorIs(t, err, remoting.ErrConnect)
}

// GET_MIN_OFFSET (31) carries topic, queueId and the broker name (bname) as extFields and reads the answer's
// "offset" header field; a remote failure is a *remoting.RemoteError with its code.
// Java: MQClientAPIImpl#getMinOffset.
func TestGetMinOffset(t *testing.T) {
	var got map[string]string
	s := remotingtest.StartServer(t, func(s *remoting.Server) {
		s.RegisterProcessor(protocol.GetMinOffset, remoting.ProcessorFunc(func(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			got = req.ExtFields
			if req.ExtFields["topic"] == "Missing" {
				return remoting.NewResponse(remoting.SystemError, "no such topic"), nil
			}
			resp := remoting.NewResponse(remoting.Success, "")
			resp.AddExtField("offset", "7")
			return resp, nil
		}), 1)
	})
	api := NewMQClientAPI(DefaultClientConfig(), Options{}, nil, nil)
	t.Cleanup(api.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	v, err := api.GetMinOffset(ctx, s.Addr().String(), primitive.MessageQueue{Topic: "T", BrokerName: "broker-a", QueueID: 3})
	require.NoError(t, err)
	require.Equal(t, int64(7), v)
	require.Equal(t, "T", got["topic"])
	require.Equal(t, "3", got["queueId"])
	require.Equal(t, "broker-a", got["bname"])

	_, err = api.GetMinOffset(ctx, s.Addr().String(), primitive.MessageQueue{Topic: "Missing", BrokerName: "broker-a"})
	var re *remoting.RemoteError
	require.ErrorAs(t, err, &re)
	require.Equal(t, int32(remoting.SystemError), re.Code)
}
