package protocol

import (
	"encoding/json"
)

// NamespaceOrderTopicConfig is the KV-config namespace whose entries (topic → "brokerName:queueNums;...")
// the name server puts into a route's orderTopicConf when orderMessageEnable is on, and returns
// to a registering broker in the REGISTER_BROKER response body (a KVTable).
// Java: NamesrvUtil.NAMESPACE_ORDER_TOPIC_CONFIG.
const NamespaceOrderTopicConfig = "ORDER_TOPIC_CONFIG"

// PutKVConfigRequestHeader is the header of PUT_KV_CONFIG (100): all three fields required.
// Mirrors namesrv.PutKVConfigRequestHeader.
type PutKVConfigRequestHeader struct {
	Namespace string `ext:"namespace"`
	Key       string `ext:"key"`
	Value     string `ext:"value"`
}

// KVConfigKeyHeader names one KV-config item: the header of GET_KV_CONFIG (101) and
// DELETE_KV_CONFIG (102); both fields required.
// Mirrors namesrv.GetKVConfigRequestHeader and DeleteKVConfigRequestHeader.
type KVConfigKeyHeader struct {
	Namespace string `ext:"namespace"`
	Key       string `ext:"key"`
}

// The per-code names of KVConfigKeyHeader, as in Java.
type (
	GetKVConfigRequestHeader    = KVConfigKeyHeader
	DeleteKVConfigRequestHeader = KVConfigKeyHeader
)

// GetKVConfigResponseHeader is the header of a successful GET_KV_CONFIG response: the value
// (Java: @CFNullable; a QUERY_NOT_FOUND response carries none). It decodes as "" when absent
// and is written even when empty (a found item may be "").
// Mirrors namesrv.GetKVConfigResponseHeader.
type GetKVConfigResponseHeader struct {
	Value string `ext:"value,optional"`
}

// GetKVListByNamespaceRequestHeader is the header of GET_KVLIST_BY_NAMESPACE (219).
// Mirrors namesrv.GetKVListByNamespaceRequestHeader.
type GetKVListByNamespaceRequestHeader struct {
	Namespace string `ext:"namespace"`
}

// GetTopicsByClusterRequestHeader is the header of GET_TOPICS_BY_CLUSTER (224).
// Mirrors GetTopicsByClusterRequestHeader.
type GetTopicsByClusterRequestHeader struct {
	Cluster string `ext:"cluster"`
}

// KVTable is the body of a GET_KVLIST_BY_NAMESPACE response and of a REGISTER_BROKER response
// (the ORDER_TOPIC_CONFIG namespace): {"table":{"key":"value",...}}.
// Mirrors org.apache.rocketmq.common.protocol.body.KVTable.
type KVTable struct {
	Table map[string]string `json:"table"`
}

// Encode returns the JSON body (keys sorted; an empty table as {}).
func (t *KVTable) Encode() []byte {
	c := *t
	if c.Table == nil {
		c.Table = map[string]string{}
	}
	b, _ := json.Marshal(&c) // a map[string]string always marshals
	return b
}

// DecodeKVTable parses a KVTable body; a missing "table" gives an empty table.
// Errors wrap ErrBadBody.
func DecodeKVTable(body []byte) (*KVTable, error) {
	var t KVTable
	if err := unmarshalBody(body, "kv table", &t); err != nil {
		return nil, err
	}
	if t.Table == nil {
		t.Table = map[string]string{}
	}
	return &t, nil
}
