package protocol

// RegisterBrokerRequestHeader is the header of REGISTER_BROKER (103, broker → name server).
// Mirrors namesrv.RegisterBrokerRequestHeader (remoting-protocol.md §5.1).
type RegisterBrokerRequestHeader struct {
	BrokerName string // required
	// BrokerAddr is brokerIP1:listenPort. Required.
	BrokerAddr  string
	ClusterName string // required
	// HaServerAddr is brokerIP2:haListenPort. Required.
	HaServerAddr string
	// BrokerID: 0 master, > 0 slave. Required.
	BrokerID int64
	// Compressed: the body is the deflate form (RegisterBrokerBody.Decode). Optional.
	Compressed bool
	// BodyCrc32 is primitive.CRC32 of the body; 0 means "don't check". Optional.
	BodyCrc32 int32
}

// Decode reads the header. Errors: ErrMissingField, ErrBadField.
func (h *RegisterBrokerRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = RegisterBrokerRequestHeader{
		BrokerName:   r.str("brokerName"),
		BrokerAddr:   r.str("brokerAddr"),
		ClusterName:  r.str("clusterName"),
		HaServerAddr: r.str("haServerAddr"),
		BrokerID:     r.i64("brokerId"),
		Compressed:   r.optBool("compressed"),
	}
	h.BodyCrc32, _ = r.optI32("bodyCrc32")
	return r.err
}

// Encode writes the header.
func (h *RegisterBrokerRequestHeader) Encode() map[string]string {
	return map[string]string{
		"brokerName":   h.BrokerName,
		"brokerAddr":   h.BrokerAddr,
		"clusterName":  h.ClusterName,
		"haServerAddr": h.HaServerAddr,
		"brokerId":     itoa64(h.BrokerID),
		"compressed":   btoa(h.Compressed),
		"bodyCrc32":    itoa32(h.BodyCrc32),
	}
}

// RegisterBrokerResponseHeader is the header of the REGISTER_BROKER response: for a slave, the
// master's HA address and broker address; both empty (omitted) for a master.
// Mirrors namesrv.RegisterBrokerResponseHeader.
type RegisterBrokerResponseHeader struct {
	HaServerAddr string
	MasterAddr   string
}

// Decode reads the header (both fields optional).
func (h *RegisterBrokerResponseHeader) Decode(ext map[string]string) error {
	*h = RegisterBrokerResponseHeader{HaServerAddr: ext["haServerAddr"], MasterAddr: ext["masterAddr"]}
	return nil
}

// Encode writes the non-empty fields.
func (h *RegisterBrokerResponseHeader) Encode() map[string]string {
	ext := make(map[string]string, 2)
	putOpt(ext, "haServerAddr", h.HaServerAddr)
	putOpt(ext, "masterAddr", h.MasterAddr)
	return ext
}

// BrokerIdentityHeader names one broker process: the header of UNREGISTER_BROKER (104) and
// QUERY_DATA_VERSION (322); all four fields required.
// Mirrors namesrv.UnRegisterBrokerRequestHeader and QueryDataVersionRequestHeader.
type BrokerIdentityHeader struct {
	BrokerName  string
	BrokerAddr  string
	ClusterName string
	BrokerID    int64
}

// The per-code names of BrokerIdentityHeader, as in Java.
type (
	UnRegisterBrokerRequestHeader = BrokerIdentityHeader
	QueryDataVersionRequestHeader = BrokerIdentityHeader
)

// Decode reads the header. Errors: ErrMissingField, ErrBadField.
func (h *BrokerIdentityHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = BrokerIdentityHeader{
		BrokerName:  r.str("brokerName"),
		BrokerAddr:  r.str("brokerAddr"),
		ClusterName: r.str("clusterName"),
		BrokerID:    r.i64("brokerId"),
	}
	return r.err
}

// Encode writes the header.
func (h *BrokerIdentityHeader) Encode() map[string]string {
	return map[string]string{
		"brokerName":  h.BrokerName,
		"brokerAddr":  h.BrokerAddr,
		"clusterName": h.ClusterName,
		"brokerId":    itoa64(h.BrokerID),
	}
}

// QueryDataVersionResponseHeader is the header of the QUERY_DATA_VERSION response: whether the
// broker's DataVersion differs from the one the name server holds (required).
// Mirrors namesrv.QueryDataVersionResponseHeader.
type QueryDataVersionResponseHeader struct {
	Changed bool
}

// Decode reads the header. Errors: ErrMissingField.
func (h *QueryDataVersionResponseHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	h.Changed = r.boolean("changed")
	return r.err
}

// Encode writes the header.
func (h *QueryDataVersionResponseHeader) Encode() map[string]string {
	return map[string]string{"changed": btoa(h.Changed)}
}

// GetRouteInfoRequestHeader is the header of GET_ROUTEINFO_BY_TOPIC (105).
// Mirrors namesrv.GetRouteInfoRequestHeader (remoting-protocol.md §5.3).
type GetRouteInfoRequestHeader struct {
	Topic string // required
	// AcceptStandardJSONOnly asks for quoted brokerAddrs keys (TopicRouteData.EncodeStandard)
	// whatever the request version (4.9.4+). Optional.
	AcceptStandardJSONOnly bool
}

// Decode reads the header. Errors: ErrMissingField.
func (h *GetRouteInfoRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = GetRouteInfoRequestHeader{
		Topic:                  r.str("topic"),
		AcceptStandardJSONOnly: r.optBool("acceptStandardJsonOnly"),
	}
	return r.err
}

// Encode writes the header (acceptStandardJsonOnly only when true).
func (h *GetRouteInfoRequestHeader) Encode() map[string]string {
	ext := map[string]string{"topic": h.Topic}
	if h.AcceptStandardJSONOnly {
		ext["acceptStandardJsonOnly"] = "true"
	}
	return ext
}

// DeleteTopicFromNamesrvRequestHeader is the header of DELETE_TOPIC_IN_NAMESRV (216).
// Mirrors namesrv.DeleteTopicFromNamesrvRequestHeader.
type DeleteTopicFromNamesrvRequestHeader struct {
	Topic       string // required
	ClusterName string // optional: delete only that cluster's queue data
}

// Decode reads the header. Errors: ErrMissingField.
func (h *DeleteTopicFromNamesrvRequestHeader) Decode(ext map[string]string) error {
	r := extReader{ext: ext}
	*h = DeleteTopicFromNamesrvRequestHeader{Topic: r.str("topic"), ClusterName: r.optStr("clusterName")}
	return r.err
}

// Encode writes the header.
func (h *DeleteTopicFromNamesrvRequestHeader) Encode() map[string]string {
	ext := map[string]string{"topic": h.Topic}
	putOpt(ext, "clusterName", h.ClusterName)
	return ext
}
