package protocol

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func sampleRoute() *TopicRouteData {
	return &TopicRouteData{
		QueueDatas: []*QueueData{
			{BrokerName: "broker-a", ReadQueueNums: 4, WriteQueueNums: 4, Perm: 6},
			{BrokerName: "broker-b", ReadQueueNums: 8, WriteQueueNums: 8, Perm: 7, TopicSysFlag: 1},
		},
		BrokerDatas: []*BrokerData{
			{Cluster: "DefaultCluster", BrokerName: "broker-a", BrokerAddrs: map[int64]string{1: "10.0.0.2:10911", 0: "10.0.0.1:10911"}},
			{Cluster: "DefaultCluster", BrokerName: "broker-b", BrokerAddrs: nil},
		},
	}
}

// The expected texts are written by hand in fastjson's style (§5.3): compact, alphabetical
// fields, brokerAddrs always present, keys unquoted for old requesters.
const (
	wantRouteFastjson = `{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"},` +
		`{"brokerAddrs":{},"brokerName":"broker-b","cluster":"DefaultCluster"}],"filterServerTable":{},` +
		`"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},` +
		`{"brokerName":"broker-b","perm":7,"readQueueNums":8,"topicSysFlag":1,"writeQueueNums":8}]}`
	wantRouteStandard = `{"brokerDatas":[{"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"},` +
		`{"brokerAddrs":{},"brokerName":"broker-b","cluster":"DefaultCluster"}],"filterServerTable":{},` +
		`"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4},` +
		`{"brokerName":"broker-b","perm":7,"readQueueNums":8,"topicSysFlag":1,"writeQueueNums":8}]}`
)

// TestTopicRouteDataEncode pins the route body byte for byte: fastjson's unquoted numeric keys
// for client-go (version 317 < 401) and the quoted form for 4.9.4+ requesters (pitfall 1).
func TestTopicRouteDataEncode(t *testing.T) {
	r := sampleRoute()
	require.Equal(t, wantRouteFastjson, string(r.Encode()))
	require.Equal(t, wantRouteStandard, string(r.EncodeStandard()))
	require.True(t, json.Valid(r.EncodeStandard()))
	require.False(t, json.Valid(r.Encode()), "the fastjson form is not standard JSON")

	r.OrderTopicConf = "broker-a:4"
	r.FilterServerTable = map[string][]string{"10.0.0.1:10911": {"f2", "f1"}}
	require.Equal(t, `{"brokerDatas":[],"filterServerTable":{"10.0.0.1:10911":["f2","f1"]},"orderTopicConf":"broker-a:4","queueDatas":[]}`,
		string((&TopicRouteData{OrderTopicConf: r.OrderTopicConf, FilterServerTable: r.FilterServerTable}).Encode()))

	esc := &TopicRouteData{BrokerDatas: []*BrokerData{{Cluster: "c\"\\\n", BrokerName: "b", BrokerAddrs: map[int64]string{0: "a"}}}}
	require.Equal(t, `{"brokerDatas":[{"brokerAddrs":{"0":"a"},"brokerName":"b","cluster":"c\"\\\n"}],"filterServerTable":{},"queueDatas":[]}`,
		string(esc.EncodeStandard()))
}

// clientGoBrokerAddrs replicates client-go's documented raw-text parsing of brokerAddrs
// (internal/route.go TopicRouteData.decode, not importable): strip the first and last
// character, split on ",", split each part at the first ":", remove all quotes.
func clientGoBrokerAddrs(raw string) map[int64]string {
	out := map[int64]string{}
	for _, part := range strings.Split(raw[1:len(raw)-1], ",") {
		i := strings.Index(part, ":")
		if i < 0 {
			continue
		}
		id, _ := strconv.ParseInt(strings.ReplaceAll(part[:i], `"`, ""), 10, 64)
		out[id] = strings.ReplaceAll(part[i+1:], `"`, "")
	}
	return out
}

// rawBrokerAddrs cuts the raw text of the n-th "brokerAddrs" object out of a route body (the
// role gjson's Get(...).String() plays in client-go).
func rawBrokerAddrs(t *testing.T, body string, n int) string {
	idx := -1
	for range n + 1 {
		j := strings.Index(body[idx+1:], `"brokerAddrs":`)
		require.GreaterOrEqual(t, j, 0)
		idx += 1 + j
	}
	start := idx + len(`"brokerAddrs":`)
	end := strings.IndexByte(body[start:], '}')
	return body[start : start+end+1]
}

// TestRouteParsesTheClientGoWay pins that both encodings survive client-go's hand-made parser
// with exact addresses (no stray spaces or quotes), and that an empty brokerAddrs is harmless.
func TestRouteParsesTheClientGoWay(t *testing.T) {
	for _, body := range []string{string(sampleRoute().Encode()), string(sampleRoute().EncodeStandard())} {
		require.Equal(t, map[int64]string{0: "10.0.0.1:10911", 1: "10.0.0.2:10911"}, clientGoBrokerAddrs(rawBrokerAddrs(t, body, 0)))
		require.Empty(t, clientGoBrokerAddrs(rawBrokerAddrs(t, body, 1)))
	}
	// The failure mode the compact encoding avoids: a space after ':' corrupts the address.
	require.Equal(t, " 10.0.0.1:10911", clientGoBrokerAddrs(`{"0": "10.0.0.1:10911"}`)[0])
}

// TestDecodeTopicRouteData pins that our decoder reads both forms back to the same value.
func TestDecodeTopicRouteData(t *testing.T) {
	want := sampleRoute()
	want.BrokerDatas[1].BrokerAddrs = map[int64]string{}
	want.FilterServerTable = map[string][]string{}
	for _, body := range [][]byte{sampleRoute().Encode(), sampleRoute().EncodeStandard()} {
		got, err := DecodeTopicRouteData(body)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	// The Java example of §5.3, with spaces and line breaks.
	got, err := DecodeTopicRouteData([]byte(`{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],
 "filterServerTable":{},
 "queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}`))
	require.NoError(t, err)
	require.Equal(t, "10.0.0.2:10911", got.BrokerDatas[0].BrokerAddrs[1])
	require.Equal(t, "10.0.0.1:10911", got.BrokerDatas[0].MasterAddr())

	for _, bad := range []string{``, `{`, `{"brokerDatas":"x`, `[1,2`, `{0:}`} {
		_, err := DecodeTopicRouteData([]byte(bad))
		require.ErrorIs(t, err, ErrBadBody, bad)
	}
}

// TestClusterInfoEncode pins GET_BROKER_CLUSTER_INFO's body (§5.4), same key rule as routes.
func TestClusterInfoEncode(t *testing.T) {
	ci := &ClusterInfo{
		BrokerAddrTable: map[string]*BrokerData{
			"broker-b": {Cluster: "DefaultCluster", BrokerName: "broker-b", BrokerAddrs: map[int64]string{0: "10.0.0.3:10911"}},
			"broker-a": {Cluster: "DefaultCluster", BrokerName: "broker-a", BrokerAddrs: map[int64]string{0: "10.0.0.1:10911"}},
		},
		ClusterAddrTable: map[string][]string{"DefaultCluster": {"broker-b", "broker-a"}},
	}
	want := `{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"},` +
		`"broker-b":{"brokerAddrs":{0:"10.0.0.3:10911"},"brokerName":"broker-b","cluster":"DefaultCluster"}},` +
		`"clusterAddrTable":{"DefaultCluster":["broker-a","broker-b"]}}`
	require.Equal(t, want, string(ci.Encode()))
	require.Equal(t, []string{"broker-b", "broker-a"}, ci.ClusterAddrTable["DefaultCluster"], "Encode does not reorder the caller's slice")
	require.Equal(t, strings.ReplaceAll(want, `{0:`, `{"0":`), string(ci.EncodeStandard()))

	back, err := DecodeClusterInfo(ci.Encode())
	require.NoError(t, err)
	require.Equal(t, "10.0.0.3:10911", back.BrokerAddrTable["broker-b"].MasterAddr())
	require.ElementsMatch(t, []string{"broker-a", "broker-b"}, back.ClusterAddrTable["DefaultCluster"])
}

// TestRouteClone pins that Clone shares nothing mutable with the original.
func TestRouteClone(t *testing.T) {
	r := sampleRoute()
	c := r.Clone()
	c.BrokerDatas[0].BrokerAddrs[0] = "changed"
	c.QueueDatas[0].Perm = 2
	require.Equal(t, "10.0.0.1:10911", r.BrokerDatas[0].BrokerAddrs[0])
	require.Equal(t, int32(6), r.QueueDatas[0].Perm)
	require.Equal(t, wantRouteFastjson, string(sampleRoute().Clone().Encode()))
}
