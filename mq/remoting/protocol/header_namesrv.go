package protocol

// RegisterBrokerRequestHeader is the header of REGISTER_BROKER (103, broker → name server).
// Mirrors namesrv.RegisterBrokerRequestHeader (remoting-protocol.md §5.1).
type RegisterBrokerRequestHeader struct {
	BrokerName string `ext:"brokerName"`
	// BrokerAddr is brokerIP1:listenPort.
	BrokerAddr  string `ext:"brokerAddr"`
	ClusterName string `ext:"clusterName"`
	// HaServerAddr is brokerIP2:haListenPort.
	HaServerAddr string `ext:"haServerAddr"`
	// BrokerID: 0 master, > 0 slave.
	BrokerID int64 `ext:"brokerId"`
	// Compressed: the body is the deflate form (RegisterBrokerBody.Decode).
	Compressed bool `ext:"compressed,optional"`
	// BodyCrc32 is primitive.CRC32 of the body; 0 means "don't check".
	BodyCrc32 int32 `ext:"bodyCrc32,optional"`
}

// RegisterBrokerResponseHeader is the header of the REGISTER_BROKER response: for a slave, the
// master's HA address and broker address; both empty (omitted) for a master.
// Mirrors namesrv.RegisterBrokerResponseHeader.
type RegisterBrokerResponseHeader struct {
	HaServerAddr string `ext:"haServerAddr,omitempty"`
	MasterAddr   string `ext:"masterAddr,omitempty"`
}

// BrokerIdentityHeader names one broker process: the header of UNREGISTER_BROKER (104) and
// QUERY_DATA_VERSION (322); all four fields required.
// Mirrors namesrv.UnRegisterBrokerRequestHeader and QueryDataVersionRequestHeader.
type BrokerIdentityHeader struct {
	BrokerName  string `ext:"brokerName"`
	BrokerAddr  string `ext:"brokerAddr"`
	ClusterName string `ext:"clusterName"`
	BrokerID    int64  `ext:"brokerId"`
}

// The per-code names of BrokerIdentityHeader, as in Java.
type (
	UnRegisterBrokerRequestHeader = BrokerIdentityHeader
	QueryDataVersionRequestHeader = BrokerIdentityHeader
)

// QueryDataVersionResponseHeader is the header of the QUERY_DATA_VERSION response: whether the
// broker's DataVersion differs from the one the name server holds (required).
// Mirrors namesrv.QueryDataVersionResponseHeader.
type QueryDataVersionResponseHeader struct {
	Changed bool `ext:"changed"`
}

// GetRouteInfoRequestHeader is the header of GET_ROUTEINFO_BY_TOPIC (105).
// Mirrors namesrv.GetRouteInfoRequestHeader (remoting-protocol.md §5.3).
type GetRouteInfoRequestHeader struct {
	Topic string `ext:"topic"`
	// AcceptStandardJSONOnly asks for quoted brokerAddrs keys (TopicRouteData.EncodeStandard)
	// whatever the request version (4.9.4+). Optional, written only when true.
	AcceptStandardJSONOnly bool `ext:"acceptStandardJsonOnly,omitempty"`
}

// DeleteTopicFromNamesrvRequestHeader is the header of DELETE_TOPIC_IN_NAMESRV (216).
// Mirrors namesrv.DeleteTopicFromNamesrvRequestHeader.
type DeleteTopicFromNamesrvRequestHeader struct {
	Topic string `ext:"topic"`
	// ClusterName, if set, deletes only that cluster's queue data.
	ClusterName string `ext:"clusterName,omitempty"`
}
