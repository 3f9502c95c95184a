package broker

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// TestClientManageBadInput: a HEART_BEAT or UNREGISTER_CLIENT with garbage or missing fields
// from the network is answered with an error code and a remark, never a panic, and the broker
// keeps serving (a well-formed heartbeat afterwards registers). Java: ClientManageProcessor
// (a body that does not decode, or a header missing @CFNotNull clientID, is an error response).
func TestClientManageBadInput(t *testing.T) {
	tb := startTestBroker(t, nil)
	for _, tc := range []struct {
		name string
		req  *remoting.RemotingCommand
		code int32 // 0: any error code
	}{
		{"heartbeat without a body", remoting.NewRequest(protocol.HeartBeat, nil, nil), protocol.SystemError},
		{"heartbeat, body not JSON", remoting.NewRequest(protocol.HeartBeat, nil, []byte{0xff, 0x00, 0x7b}), protocol.SystemError},
		{"heartbeat, a JSON array", remoting.NewRequest(protocol.HeartBeat, nil, []byte(`[1,2]`)), protocol.SystemError},
		{"heartbeat, consumerDataSet of the wrong type", remoting.NewRequest(protocol.HeartBeat, nil,
			[]byte(`{"clientID":"c","consumerDataSet":"x"}`)), protocol.SystemError},
		{"heartbeat, subVersion not a number", remoting.NewRequest(protocol.HeartBeat, nil,
			[]byte(`{"clientID":"c","consumerDataSet":[{"groupName":"g","subscriptionDataSet":[{"topic":"T","subVersion":"x"}]}]}`)), protocol.SystemError},
		{"unregister without a header", remoting.NewRequest(protocol.UnregisterClient, nil, nil), 0},
		{"unregister without clientID", remoting.NewRequest(protocol.UnregisterClient,
			map[string]string{"consumerGroup": "cg"}, nil), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := tb.invoke(t, tc.req)
			require.NotEqual(t, int32(protocol.Success), resp.Code)
			if tc.code != 0 {
				require.Equal(t, tc.code, resp.Code)
			}
			require.NotEmpty(t, resp.Remark)
		})
	}
	// Odd but well-formed JSON (null entries, no names) decodes and is answered SUCCESS, as Java's
	// fastjson takes it.
	for _, body := range []string{`null`, `{}`, `{"consumerDataSet":[null],"producerDataSet":[null]}`,
		`{"clientID":"c","consumerDataSet":[{"groupName":"g2","subscriptionDataSet":[null,{"topic":"T","subString":"||","expressionType":"TAG"}]}]}`} {
		resp := tb.invoke(t, remoting.NewRequest(protocol.HeartBeat, nil, []byte(body)))
		require.Equal(t, int32(protocol.Success), resp.Code, "%s: %s", body, resp.Remark)
	}
	heartbeat(t, tb.client, tb.addr, "10.0.0.1@1", "cg")
	_, ids := tb.consumerList(t, "cg")
	require.Equal(t, []string{"10.0.0.1@1"}, ids, "the broker still serves heartbeats")
}
