package broker

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// dataVersionNamesrv is a stand-in name server for QUERY_DATA_VERSION and REGISTER_BROKER: it
// records the requests and answers QUERY_DATA_VERSION with whatever answer holds.
type dataVersionNamesrv struct {
	srv *remoting.Server

	mu        sync.Mutex
	answer    *remoting.RemotingCommand // nil: SUCCESS, changed=false, no body
	queries   []*remoting.RemotingCommand
	registers int
}

func startDataVersionNamesrv(t *testing.T) *dataVersionNamesrv {
	t.Helper()
	n := &dataVersionNamesrv{srv: remoting.NewServer(remoting.ServerConfig{ListenAddr: "127.0.0.1:0"}, nil, nil)}
	n.srv.RegisterProcessor(protocol.QueryDataVersion, remoting.ProcessorFunc(
		func(_ *remoting.Channel, req *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.queries = append(n.queries, req)
			if n.answer != nil {
				a := *n.answer
				return &a, nil
			}
			resp := remoting.NewResponse(protocol.Success, "")
			resp.ExtFields = map[string]string{"changed": "false"}
			return resp, nil
		}), 1)
	n.srv.RegisterProcessor(protocol.RegisterBroker, remoting.ProcessorFunc(
		func(*remoting.Channel, *remoting.RemotingCommand) (*remoting.RemotingCommand, error) {
			n.mu.Lock()
			n.registers++
			n.mu.Unlock()
			resp := remoting.NewResponse(protocol.Success, "")
			resp.ExtFields = map[string]string{"masterAddr": "10.0.0.1:10911", "haServerAddr": "10.0.0.1:10912"}
			resp.Body = []byte(`{"table":{"OrderTopic":"broker-a:4"}}`)
			return resp, nil
		}), 1)
	require.NoError(t, n.srv.Start())
	t.Cleanup(n.srv.Shutdown)
	return n
}

func (n *dataVersionNamesrv) addr() string { return n.srv.Addr().String() }

func (n *dataVersionNamesrv) setAnswer(code int32, changed string, body string) {
	resp := remoting.NewResponse(code, "")
	if changed != "" {
		resp.ExtFields = map[string]string{"changed": changed}
	}
	if body != "" {
		resp.Body = []byte(body)
	}
	n.mu.Lock()
	n.answer = resp
	n.mu.Unlock()
}

func (n *dataVersionNamesrv) counts() (queries, registers int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.queries), n.registers
}

// NeedRegister sends QUERY_DATA_VERSION with the broker's identity in the header and the
// DataVersion JSON as the body, and decides as BrokerOuterAPI#needRegister does: changed when
// the answer says so or returns another DataVersion, or when the call fails; unchanged for a
// non-SUCCESS answer.
func TestNeedRegister(t *testing.T) {
	dv := protocol.DataVersion{Counter: 3, Timestamp: 1700000000000}
	ns := startDataVersionNamesrv(t)
	api := NewBrokerOuterAPI(remoting.ClientConfig{}, nil)
	t.Cleanup(api.Shutdown)
	require.False(t, api.NeedRegister("c", "127.0.0.1:10911", "broker-a", 0, dv, time.Second), "no name server: nothing to do")
	api.UpdateNameServerAddressList([]string{ns.addr()})

	for _, tc := range []struct {
		name    string
		code    int32
		changed string
		body    string
		want    bool
	}{
		{"unchanged, same stored version", protocol.Success, "false", `{"counter":3,"timestamp":1700000000000}`, false},
		{"unchanged, no stored version", protocol.Success, "false", "", false},
		{"header says changed", protocol.Success, "true", `{"counter":3,"timestamp":1700000000000}`, true},
		{"stored version differs", protocol.Success, "false", `{"counter":2,"timestamp":1700000000000}`, true},
		{"stored timestamp differs", protocol.Success, "false", `{"counter":3,"timestamp":1}`, true},
		{"non-SUCCESS counts as unchanged", protocol.SystemError, "", "", false},
		{"undecodable body counts as changed", protocol.Success, "false", `{`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns.setAnswer(tc.code, tc.changed, tc.body)
			require.Equal(t, tc.want, api.NeedRegister("DefaultCluster", "127.0.0.1:10911", "broker-a", 0, dv, time.Second))
		})
	}
	ns.mu.Lock()
	q := ns.queries[0]
	ns.mu.Unlock()
	require.EqualValues(t, protocol.QueryDataVersion, q.Code)
	require.Equal(t, map[string]string{"brokerName": "broker-a", "brokerAddr": "127.0.0.1:10911",
		"clusterName": "DefaultCluster", "brokerId": "0"}, q.ExtFields)
	require.Equal(t, `{"counter":3,"timestamp":1700000000000}`, string(q.Body))

	api.UpdateNameServerAddressList([]string{ns.addr(), "127.0.0.1:1"}) // the second refuses connections
	ns.setAnswer(protocol.Success, "false", "")
	require.True(t, api.NeedRegister("c", "127.0.0.1:10911", "broker-a", 0, dv, time.Second),
		"a name server that cannot be asked may have lost the broker")
}

// REGISTER_BROKER's answer carries the master's addresses in the header and the name server's
// ORDER_TOPIC_CONFIG namespace as a KVTable body (BrokerOuterAPI#registerBroker).
func TestRegisterBrokerAllDecodesAnswer(t *testing.T) {
	ns := startDataVersionNamesrv(t)
	api := NewBrokerOuterAPI(remoting.ClientConfig{}, nil)
	t.Cleanup(api.Shutdown)
	api.UpdateNameServerAddressList([]string{ns.addr()})
	res := api.RegisterBrokerAll("c", "10.0.0.2:10911", "broker-a", 1, "10.0.0.2:10912",
		protocol.TopicConfigSerializeWrapper{}, time.Second)
	require.Equal(t, []RegisterBrokerResult{{NamesrvAddr: ns.addr(), HaServerAddr: "10.0.0.1:10912",
		MasterAddr: "10.0.0.1:10911", KvTable: map[string]string{"OrderTopic": "broker-a:4"}}}, res)
}

// With forceRegister=false a registration pass asks QUERY_DATA_VERSION first and sends
// REGISTER_BROKER only when a name server reports a change; with true (Start, topic changes) it
// registers without asking (BrokerController#registerBrokerAll, #needRegister).
func TestRegisterBrokerAllWithForceRegister(t *testing.T) {
	require.True(t, DefaultBrokerConfig().ForceRegister, "Java's default")
	ns := startDataVersionNamesrv(t)
	tb := startTestBroker(t, nil, func(c *BrokerConfig, _ storeSetup) {
		c.NamesrvAddr = ns.addr()
		c.ForceRegister = false
	})
	q, r := ns.counts()
	require.Equal(t, [2]int{0, 1}, [2]int{q, r}, "Start registers without asking")

	tb.b.RegisterBrokerAllWith(false) // the default answer: unchanged
	q, r = ns.counts()
	require.Equal(t, [2]int{1, 1}, [2]int{q, r}, "asked, and nothing sent")

	ns.setAnswer(protocol.Success, "true", "")
	tb.b.RegisterBrokerAllWith(false)
	q, r = ns.counts()
	require.Equal(t, [2]int{2, 2}, [2]int{q, r}, "asked, then registered")

	tb.b.RegisterBrokerAll()
	q, r = ns.counts()
	require.Equal(t, [2]int{2, 3}, [2]int{q, r}, "forced: registered without asking")
}
