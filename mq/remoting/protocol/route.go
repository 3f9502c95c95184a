package protocol

import (
	"maps"
	"slices"
)

// QueueData is one broker's queues of a topic, as the name server publishes them.
// Mirrors org.apache.rocketmq.common.protocol.route.QueueData (4.9: `topicSysFlag`; 4.8 and
// older spelled it `topicSynFlag`).
type QueueData struct {
	BrokerName     string `json:"brokerName"`
	ReadQueueNums  int32  `json:"readQueueNums"`
	WriteQueueNums int32  `json:"writeQueueNums"`
	Perm           int32  `json:"perm"`
	TopicSysFlag   int32  `json:"topicSysFlag"`
}

// BrokerData is one broker name (a master and its slaves) of a cluster.
// Mirrors org.apache.rocketmq.common.protocol.route.BrokerData.
type BrokerData struct {
	Cluster    string `json:"cluster"`
	BrokerName string `json:"brokerName"`
	// BrokerAddrs maps broker id (MasterID 0 = master) to "ip:port".
	BrokerAddrs map[int64]string `json:"brokerAddrs"`
}

// MasterAddr returns the master's address, "" when the master is absent.
func (b *BrokerData) MasterAddr() string { return b.BrokerAddrs[MasterID] }

// Clone returns a deep copy (its own address map).
func (b *BrokerData) Clone() *BrokerData {
	c := *b
	c.BrokerAddrs = maps.Clone(b.BrokerAddrs)
	if c.BrokerAddrs == nil {
		c.BrokerAddrs = map[int64]string{}
	}
	return &c
}

// TopicRouteData is the body of a GET_ROUTEINFO_BY_TOPIC (105) response.
// Mirrors org.apache.rocketmq.common.protocol.route.TopicRouteData (remoting-protocol.md §5.3).
type TopicRouteData struct {
	// OrderTopicConf is "brokerName:num;..." when the name server serves order configs; else "".
	OrderTopicConf    string              `json:"orderTopicConf,omitempty"`
	QueueDatas        []*QueueData        `json:"queueDatas"`
	BrokerDatas       []*BrokerData       `json:"brokerDatas"`
	FilterServerTable map[string][]string `json:"filterServerTable"`
}

// Clone returns a deep copy, safe to encode outside the lock that guards the original.
func (t *TopicRouteData) Clone() *TopicRouteData {
	c := &TopicRouteData{OrderTopicConf: t.OrderTopicConf, FilterServerTable: map[string][]string{}}
	for _, q := range t.QueueDatas {
		qc := *q
		c.QueueDatas = append(c.QueueDatas, &qc)
	}
	for _, b := range t.BrokerDatas {
		c.BrokerDatas = append(c.BrokerDatas, b.Clone())
	}
	for k, v := range t.FilterServerTable {
		c.FilterServerTable[k] = slices.Clone(v)
	}
	return c
}

// Encode returns the route as fastjson writes it for requesters older than 4.9.4 (client-go
// says version 317): compact, fields in alphabetical order, `brokerAddrs` always present with
// unquoted numeric keys in ascending order, e.g.
//
//	{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}
//
// client-go cuts `brokerAddrs` apart as raw text, so there must be no whitespace and the
// field must exist (pitfall 1). Lists are written in slice order; orderTopicConf only when set.
// Java: DefaultRequestProcessor#getRouteInfoByTopic (TopicRouteData#encode).
func (t *TopicRouteData) Encode() []byte { return t.encode(false) }

// EncodeStandard is Encode with quoted brokerAddrs keys ({"0":"..."}), valid JSON, for
// requesters of version ≥ 401 (4.9.4) or with acceptStandardJsonOnly.
// Java: TopicRouteData#encode(SerializerFeature.BrowserCompatible, ...).
func (t *TopicRouteData) EncodeStandard() []byte { return t.encode(true) }

func (t *TopicRouteData) encode(standard bool) []byte {
	w := jsonWriter{b: make([]byte, 0, 256), quoteNumKeys: standard}
	w.byte('{')
	w.key("brokerDatas")
	w.byte('[')
	for i, b := range t.BrokerDatas {
		w.comma(i)
		w.brokerData(b)
	}
	w.byte(']')
	w.next("filterServerTable")
	writeObject(&w, t.FilterServerTable, w.strings)
	if t.OrderTopicConf != "" {
		w.next("orderTopicConf")
		w.str(t.OrderTopicConf)
	}
	w.next("queueDatas")
	w.byte('[')
	for i, q := range t.QueueDatas {
		w.comma(i)
		w.byte('{')
		w.key("brokerName")
		w.str(q.BrokerName)
		w.next("perm")
		w.int(int64(q.Perm))
		w.next("readQueueNums")
		w.int(int64(q.ReadQueueNums))
		w.next("topicSysFlag")
		w.int(int64(q.TopicSysFlag))
		w.next("writeQueueNums")
		w.int(int64(q.WriteQueueNums))
		w.byte('}')
	}
	w.byte(']')
	w.byte('}')
	return w.b
}

// brokerData writes {"brokerAddrs":{...},"brokerName":...,"cluster":...}; brokerAddrs always.
func (w *jsonWriter) brokerData(b *BrokerData) {
	w.byte('{')
	w.key("brokerAddrs")
	w.byte('{')
	ids := slices.Sorted(maps.Keys(b.BrokerAddrs))
	for i, id := range ids {
		w.comma(i)
		w.numKey(id)
		w.str(b.BrokerAddrs[id])
	}
	w.byte('}')
	w.next("brokerName")
	w.str(b.BrokerName)
	w.next("cluster")
	w.str(b.Cluster)
	w.byte('}')
}

// DecodeTopicRouteData parses a route body in either form (unquoted or quoted brokerAddrs
// keys). Errors wrap ErrBadBody.
func DecodeTopicRouteData(data []byte) (*TopicRouteData, error) {
	var t TopicRouteData
	if err := unmarshalFastjsonBody(data, "topic route data", &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// ClusterInfo is the body of a GET_BROKER_CLUSTER_INFO (106) response.
// Mirrors org.apache.rocketmq.common.protocol.body.ClusterInfo (remoting-protocol.md §5.4).
type ClusterInfo struct {
	// BrokerAddrTable maps broker name to its BrokerData.
	BrokerAddrTable map[string]*BrokerData `json:"brokerAddrTable"`
	// ClusterAddrTable maps cluster name to its broker names.
	ClusterAddrTable map[string][]string `json:"clusterAddrTable"`
}

// Encode returns the fastjson form (unquoted brokerAddrs keys), map keys and each cluster's
// broker names sorted.
func (c *ClusterInfo) Encode() []byte { return c.encode(false) }

// EncodeStandard returns valid JSON (quoted brokerAddrs keys).
func (c *ClusterInfo) EncodeStandard() []byte { return c.encode(true) }

func (c *ClusterInfo) encode(standard bool) []byte {
	w := jsonWriter{b: make([]byte, 0, 256), quoteNumKeys: standard}
	w.byte('{')
	w.key("brokerAddrTable")
	writeObject(&w, c.BrokerAddrTable, w.brokerData)
	w.next("clusterAddrTable")
	writeObject(&w, c.ClusterAddrTable, func(names []string) { w.strings(slices.Sorted(slices.Values(names))) })
	w.byte('}')
	return w.b
}

// DecodeClusterInfo parses a cluster info body in either form. Errors wrap ErrBadBody.
func DecodeClusterInfo(data []byte) (*ClusterInfo, error) {
	var c ClusterInfo
	if err := unmarshalFastjsonBody(data, "cluster info", &c); err != nil {
		return nil, err
	}
	return &c, nil
}
