#include "checkers/inject/record_descriptions.h"

#include <cstdint>

namespace gilsan::checkers::inject {
namespace {

board::HostFunctionKind board_kind(HostFunctionKind kind) {
  switch (kind) {
    case HostFunctionKind::python:
      return board::HostFunctionKind::Python;
    case HostFunctionKind::ctypes:
      return board::HostFunctionKind::Ctypes;
    case HostFunctionKind::native:
      return board::HostFunctionKind::Native;
  }
  return board::HostFunctionKind::Unknown;
}

}  // namespace

board::HostFunctionInfo board_info(const WrappedHostFunction& record) {
  board::HostFunctionInfo info;
  info.id = reinterpret_cast<std::uintptr_t>(&record);
  info.context = record.context;
  info.stream = record.stream.value_or(0);
  info.kind = board_kind(record.code->kind);
  info.implementation = record.code->implementation.c_str();
  info.description = record.code->callable.c_str();
  return info;
}

void describe_into(const WrappedHostFunction& record, HostFunction& out) {
  out.id = 0;
  out.kind = record.code->kind;
  out.callable = record.code->callable;
  out.implementation = record.code->implementation;
  out.context = record.context;
  out.stream = record.stream;
}

}  // namespace gilsan::checkers::inject
