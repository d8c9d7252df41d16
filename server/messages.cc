#include "server/messages.h"

namespace forktail {
namespace {

// Reads an int16 element count that must be non-negative and whose elements
// (each at least `min_element_bytes`) fit in what remains of the message.
int ReadCount(WireReader& r, size_t min_element_bytes) {
  int count = static_cast<uint16_t>(r.ReadInt16());
  if (count > kMaxWireParameters ||
      static_cast<size_t>(count) * min_element_bytes > r.remaining()) {
    throw ProtocolError("invalid message format");
  }
  return count;
}

}  // namespace

StartupPacket DecodeStartupPacket(std::string_view body) {
  WireReader r(body);
  StartupPacket p;
  p.code = r.ReadInt32();
  if (p.code == kCancelRequestCode) {
    p.cancel_pid = r.ReadInt32();
    p.cancel_key = r.ReadInt32();
    r.ExpectEnd();
    return p;
  }
  if (p.code == kSslRequestCode || p.code == kGssEncRequestCode) {
    r.ExpectEnd();
    return p;
  }
  if ((p.code >> 16) != 3) return p;  // the caller rejects the version
  // name\0value\0 ... \0
  while (true) {
    std::string_view name = r.ReadString();
    if (name.empty()) break;
    std::string_view value = r.ReadString();
    p.parameters.emplace_back(std::string(name), std::string(value));
  }
  r.ExpectEnd();
  return p;
}

void EncodeStartupPacket(std::string* out, const StartupPacket& packet) {
  WireWriter w(out);
  w.BeginUntyped();
  w.Int32(packet.code);
  if (packet.code == kCancelRequestCode) {
    w.Int32(packet.cancel_pid);
    w.Int32(packet.cancel_key);
  } else if ((packet.code >> 16) == 3) {
    for (const auto& [name, value] : packet.parameters) {
      w.String(name);
      w.String(value);
    }
    w.Byte(0);
  }
  w.End();
}

ParseMessage DecodeParse(std::string_view body) {
  WireReader r(body);
  ParseMessage m;
  m.statement = r.ReadString();
  m.query = r.ReadString();
  int n = ReadCount(r, 4);
  m.parameter_oids.reserve(n);
  for (int i = 0; i < n; ++i) m.parameter_oids.push_back(r.ReadInt32());
  r.ExpectEnd();
  return m;
}

BindMessage DecodeBind(std::string_view body) {
  WireReader r(body);
  BindMessage m;
  m.portal = r.ReadString();
  m.statement = r.ReadString();
  int nformats = ReadCount(r, 2);
  for (int i = 0; i < nformats; ++i) m.parameter_formats.push_back(r.ReadInt16());
  int nparams = ReadCount(r, 4);
  m.parameters.reserve(nparams);
  for (int i = 0; i < nparams; ++i) {
    int32_t len = r.ReadInt32();
    if (len == -1) {
      m.parameters.emplace_back(std::nullopt);
    } else if (len < 0 || static_cast<size_t>(len) > r.remaining()) {
      throw ProtocolError("insufficient data left in message");
    } else {
      m.parameters.emplace_back(std::string(r.ReadBytes(len)));
    }
  }
  int nresults = ReadCount(r, 2);
  for (int i = 0; i < nresults; ++i) m.result_formats.push_back(r.ReadInt16());
  r.ExpectEnd();
  return m;
}

DescribeMessage DecodeDescribe(std::string_view body) {
  WireReader r(body);
  DescribeMessage m;
  m.kind = static_cast<char>(r.ReadByte());
  if (m.kind != 'S' && m.kind != 'P') {
    throw ProtocolError("invalid DESCRIBE/CLOSE message subtype " + std::to_string(m.kind));
  }
  m.name = r.ReadString();
  r.ExpectEnd();
  return m;
}

ExecuteMessage DecodeExecute(std::string_view body) {
  WireReader r(body);
  ExecuteMessage m;
  m.portal = r.ReadString();
  m.max_rows = r.ReadInt32();
  r.ExpectEnd();
  return m;
}

std::string DecodeQuery(std::string_view body) {
  WireReader r(body);
  std::string q(r.ReadString());
  r.ExpectEnd();
  return q;
}

SaslInitialResponse DecodeSaslInitialResponse(std::string_view body) {
  WireReader r(body);
  SaslInitialResponse m;
  m.mechanism = r.ReadString();
  int32_t len = r.ReadInt32();
  if (len >= 0) {
    m.data = std::string(r.ReadBytes(len));
  } else if (len != -1) {
    throw ProtocolError("invalid message format");
  }
  r.ExpectEnd();
  return m;
}

void EncodeParse(std::string* out, const ParseMessage& m) {
  WireWriter w(out);
  w.Begin('P');
  w.String(m.statement);
  w.String(m.query);
  w.Int16(static_cast<int16_t>(m.parameter_oids.size()));
  for (int32_t oid : m.parameter_oids) w.Int32(oid);
  w.End();
}

void EncodeBind(std::string* out, const BindMessage& m) {
  WireWriter w(out);
  w.Begin('B');
  w.String(m.portal);
  w.String(m.statement);
  w.Int16(static_cast<int16_t>(m.parameter_formats.size()));
  for (int16_t f : m.parameter_formats) w.Int16(f);
  w.Int16(static_cast<int16_t>(m.parameters.size()));
  for (const auto& p : m.parameters) {
    if (!p) {
      w.Int32(-1);
    } else {
      w.Int32(static_cast<int32_t>(p->size()));
      w.Bytes(*p);
    }
  }
  w.Int16(static_cast<int16_t>(m.result_formats.size()));
  for (int16_t f : m.result_formats) w.Int16(f);
  w.End();
}

void EncodeDescribe(std::string* out, char type, const DescribeMessage& m) {
  WireWriter w(out);
  w.Begin(type);
  w.Byte(m.kind);
  w.String(m.name);
  w.End();
}

void EncodeExecute(std::string* out, const ExecuteMessage& m) {
  WireWriter w(out);
  w.Begin('E');
  w.String(m.portal);
  w.Int32(m.max_rows);
  w.End();
}

void EncodeQuery(std::string* out, std::string_view sql) {
  WireWriter w(out);
  w.Begin('Q');
  w.String(sql);
  w.End();
}

void EncodeRaw(std::string* out, char type, std::string_view body) {
  WireWriter w(out);
  w.Begin(type);
  w.Bytes(body);
  w.End();
}

void EncodeAuthentication(std::string* out, int32_t code, std::string_view data) {
  WireWriter w(out);
  w.Begin('R');
  w.Int32(code);
  w.Bytes(data);
  w.End();
}

void EncodeParameterStatus(std::string* out, std::string_view name, std::string_view value) {
  WireWriter w(out);
  w.Begin('S');
  w.String(name);
  w.String(value);
  w.End();
}

void EncodeBackendKeyData(std::string* out, int32_t pid, int32_t key) {
  WireWriter w(out);
  w.Begin('K');
  w.Int32(pid);
  w.Int32(key);
  w.End();
}

void EncodeReadyForQuery(std::string* out, char status) {
  WireWriter w(out);
  w.Begin('Z');
  w.Byte(status);
  w.End();
}

void EncodeNotificationResponse(std::string* out, int32_t pid, std::string_view channel,
                                std::string_view payload) {
  WireWriter w(out);
  w.Begin('A');
  w.Int32(pid);
  w.String(channel);
  w.String(payload);
  w.End();
}

void EncodeRowDescription(std::string* out, const std::vector<FieldDescription>& fields) {
  WireWriter w(out);
  w.Begin('T');
  w.Int16(static_cast<int16_t>(fields.size()));
  for (const FieldDescription& f : fields) {
    w.String(f.name);
    w.Int32(0);  // table oid
    w.Int16(0);  // column attribute number
    w.Int32(f.type_oid);
    w.Int16(f.type_length);
    w.Int32(f.type_modifier);
    w.Int16(f.format);
  }
  w.End();
}

void EncodeDataRow(std::string* out, const std::vector<std::optional<std::string>>& values) {
  WireWriter w(out);
  w.Begin('D');
  w.Int16(static_cast<int16_t>(values.size()));
  for (const auto& v : values) {
    if (!v) {
      w.Int32(-1);
    } else {
      w.Int32(static_cast<int32_t>(v->size()));
      w.Bytes(*v);
    }
  }
  w.End();
}

void EncodeCommandComplete(std::string* out, std::string_view tag) {
  WireWriter w(out);
  w.Begin('C');
  w.String(tag);
  w.End();
}

void EncodeParameterDescription(std::string* out, const std::vector<int32_t>& oids) {
  WireWriter w(out);
  w.Begin('t');
  w.Int16(static_cast<int16_t>(oids.size()));
  for (int32_t oid : oids) w.Int32(oid);
  w.End();
}

namespace {

// CopyInResponse 'G' / CopyOutResponse 'H': the overall format, then every
// column's (all text, or all binary).
void EncodeCopyResponse(std::string* out, char type, int column_count, bool binary) {
  WireWriter w(out);
  w.Begin(type);
  w.Byte(binary ? 1 : 0);
  w.Int16(static_cast<int16_t>(column_count));
  for (int i = 0; i < column_count; ++i) w.Int16(binary ? 1 : 0);
  w.End();
}

}  // namespace

void EncodeCopyInResponse(std::string* out, int column_count, bool binary) {
  EncodeCopyResponse(out, 'G', column_count, binary);
}

void EncodeCopyOutResponse(std::string* out, int column_count, bool binary) {
  EncodeCopyResponse(out, 'H', column_count, binary);
}

void SplitMessageFields(ErrorFields* fields) {
  struct Line {
    std::string_view marker;
    std::string* field;
  };
  const Line lines[] = {{"\nCONTEXT:  ", &fields->where}, {"\nDETAIL:  ", &fields->detail}};
  for (const Line& line : lines) {  // the later line first: each is cut off the end
    size_t at = fields->message.find(line.marker);
    if (at == std::string::npos || !line.field->empty()) continue;
    *line.field = fields->message.substr(at + line.marker.size());
    fields->message.resize(at);
  }
}

void EncodeErrorResponse(std::string* out, char type, const ErrorFields& fields) {
  WireWriter w(out);
  w.Begin(type);
  w.Byte('S');
  w.String(fields.severity);
  w.Byte('V');
  w.String(fields.severity);
  w.Byte('C');
  w.String(fields.sqlstate);
  w.Byte('M');
  w.String(fields.message);
  if (!fields.detail.empty()) {
    w.Byte('D');
    w.String(fields.detail);
  }
  if (!fields.hint.empty()) {
    w.Byte('H');
    w.String(fields.hint);
  }
  if (!fields.where.empty()) {
    w.Byte('W');
    w.String(fields.where);
  }
  if (!fields.table.empty()) {
    w.Byte('s');
    w.String("public");
    w.Byte('t');
    w.String(fields.table);
  }
  if (!fields.column.empty()) {
    w.Byte('c');
    w.String(fields.column);
  }
  if (!fields.constraint.empty()) {
    w.Byte('n');
    w.String(fields.constraint);
  }
  if (fields.position > 0) {
    w.Byte('P');
    w.String(std::to_string(fields.position));
  }
  w.Byte(0);
  w.End();
}

}  // namespace forktail
