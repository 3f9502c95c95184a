package protocol

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The name-server headers added for issue 4 decode the extFields Java writes (field names of
// PutKVConfigRequestHeader, GetKVConfigRequestHeader, DeleteKVConfigRequestHeader,
// GetKVListByNamespaceRequestHeader, GetTopicsByClusterRequestHeader) and refuse a missing
// @CFNotNull field, as RemotingCommand#decodeCommandCustomHeader does.
func TestNamesrvKVHeaders(t *testing.T) {
	var put PutKVConfigRequestHeader
	require.NoError(t, DecodeHeader(map[string]string{"namespace": "ORDER_TOPIC_CONFIG", "key": "T", "value": "broker-a:4"}, &put))
	require.Equal(t, PutKVConfigRequestHeader{Namespace: "ORDER_TOPIC_CONFIG", Key: "T", Value: "broker-a:4"}, put)
	require.Equal(t, map[string]string{"namespace": "ORDER_TOPIC_CONFIG", "key": "T", "value": "broker-a:4"}, EncodeHeader(&put))

	var get GetKVConfigRequestHeader
	require.NoError(t, DecodeHeader(map[string]string{"namespace": "ns", "key": "k", "extra": "ignored"}, &get))
	require.Equal(t, KVConfigKeyHeader{Namespace: "ns", Key: "k"}, get)
	require.Equal(t, map[string]string{"namespace": "ns", "key": "k"}, EncodeHeader(&get))

	var resp GetKVConfigResponseHeader
	require.NoError(t, DecodeHeader(map[string]string{"value": "v"}, &resp))
	require.Equal(t, "v", resp.Value)
	require.Equal(t, map[string]string{"value": ""}, EncodeHeader(&GetKVConfigResponseHeader{}), "a found empty value is still sent")

	var list GetKVListByNamespaceRequestHeader
	require.NoError(t, DecodeHeader(map[string]string{"namespace": "ns"}, &list))
	require.Equal(t, "ns", list.Namespace)

	var byCluster GetTopicsByClusterRequestHeader
	require.NoError(t, DecodeHeader(map[string]string{"cluster": "DefaultCluster"}, &byCluster))
	require.Equal(t, map[string]string{"cluster": "DefaultCluster"}, EncodeHeader(&byCluster))

	for _, tc := range []struct {
		name   string
		decode func(map[string]string) error
		ext    map[string]string
		field  string
	}{
		{"put without value", decoder[PutKVConfigRequestHeader](), map[string]string{"namespace": "n", "key": "k"}, `"value"`},
		{"get without key", decoder[KVConfigKeyHeader](), map[string]string{"namespace": "n"}, `"key"`},
		{"list without namespace", decoder[GetKVListByNamespaceRequestHeader](), map[string]string{}, `"namespace"`},
		{"topics by cluster without cluster", decoder[GetTopicsByClusterRequestHeader](), map[string]string{"clusterName": "c"}, `"cluster"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.decode(tc.ext)
			require.ErrorIs(t, err, ErrMissingField)
			require.Contains(t, err.Error(), tc.field)
		})
	}
}

// KVTable's body is {"table":{...}} (KVTable with fastjson); DataVersion's is
// {"counter":N,"timestamp":MS}, fields in fastjson's alphabetical order. Both decoders take
// the bytes a Java peer writes.
func TestKVTableAndDataVersionBodies(t *testing.T) {
	require.Equal(t, `{"table":{"T1":"broker-a:4;broker-b:4","T2":"broker-a:8"}}`,
		string((&KVTable{Table: map[string]string{"T2": "broker-a:8", "T1": "broker-a:4;broker-b:4"}}).Encode()))
	require.Equal(t, `{"table":{}}`, string((&KVTable{}).Encode()))
	kv, err := DecodeKVTable([]byte(`{"table":{"TopicTest":"broker-a:4"}}`))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"TopicTest": "broker-a:4"}, kv.Table)
	kv, err = DecodeKVTable([]byte(`{}`))
	require.NoError(t, err)
	require.NotNil(t, kv.Table)
	_, err = DecodeKVTable([]byte(`{"table":[1]}`))
	require.ErrorIs(t, err, ErrBadBody)

	require.Equal(t, `{"counter":3,"timestamp":1700000000123}`, string(DataVersion{Counter: 3, Timestamp: 1700000000123}.Encode()))
	v, err := DecodeDataVersion([]byte(`{"timestamp":1700000000123,"counter":3,"stateVersion":0}`))
	require.NoError(t, err)
	require.Equal(t, DataVersion{Counter: 3, Timestamp: 1700000000123}, v)
	_, err = DecodeDataVersion(nil)
	require.ErrorIs(t, err, ErrBadBody)
	_, err = DecodeDataVersion([]byte(`{"counter":"x"}`))
	require.ErrorIs(t, err, ErrBadBody)
}

// FuzzNamesrvKVDecoders: these headers and bodies come from the network; decoding never panics.
func FuzzNamesrvKVDecoders(f *testing.F) {
	f.Add("namespace=ns;key=k;value=v;cluster=c", []byte(`{"table":{"a":"b"}}`))
	f.Add("namespace", []byte(`{"counter":1,"timestamp":2}`))
	f.Fuzz(func(t *testing.T, s string, body []byte) {
		ext := map[string]string{}
		for _, kv := range strings.Split(s, ";") {
			k, v, _ := strings.Cut(kv, "=")
			ext[k] = v
		}
		for _, d := range []func(map[string]string) error{
			decoder[PutKVConfigRequestHeader](),
			decoder[KVConfigKeyHeader](),
			decoder[GetKVConfigResponseHeader](),
			decoder[GetKVListByNamespaceRequestHeader](),
			decoder[GetTopicsByClusterRequestHeader](),
		} {
			_ = d(ext)
		}
		if kv, err := DecodeKVTable(body); err == nil {
			require.NotNil(t, kv.Table)
		}
		_, _ = DecodeDataVersion(body)
	})
}
