/**
 * The gRPC descriptor of the A2A 1.1 draft (A2A11): the 1.0 descriptor (v1Proto, generated from the 1.0 proto,
 * which the codegen drift tests compare) with the five fields the draft's `specification/a2a.proto` (`dev-1.1`,
 * PR #1810) adds, laid over it here. A server with the draft on converts with this descriptor; with the draft off
 * it keeps 1.0's, so its wire stays exactly 1.0's.
 *
 * @since 0.2.0
 */
import { clone, create, createFileRegistry, type DescFile, type DescService } from "@bufbuild/protobuf"
import {
  type DescriptorProto,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  file_google_protobuf_empty,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  FileDescriptorProtoSchema,
  OneofDescriptorProtoSchema
} from "@bufbuild/protobuf/wkt"
import { file_a2a } from "../../protocol/generated/v1Proto.ts"

/** A field the draft adds: the message, the proto name, the number, and whether it is `optional` (explicit). */
interface Added {
  readonly message: string
  readonly name: string
  readonly jsonName: string
  readonly number: number
  readonly optional: boolean
}

/** The draft's fields, all int64, with the numbers its proto gives them. */
const added: ReadonlyArray<Added> = [
  { message: "Task", name: "generation", jsonName: "generation", number: 7, optional: false },
  { message: "TaskStatusUpdateEvent", name: "generation", jsonName: "generation", number: 5, optional: false },
  { message: "TaskArtifactUpdateEvent", name: "generation", jsonName: "generation", number: 7, optional: false },
  {
    message: "GetTaskRequest",
    name: "current_generation",
    jsonName: "currentGeneration",
    number: 4,
    optional: true
  },
  {
    message: "SendMessageConfiguration",
    name: "if_generation_match",
    jsonName: "ifGenerationMatch",
    number: 5,
    optional: true
  }
]

const addField = (message: DescriptorProto, field: Added): void => {
  // proto3 `optional` is a field in a synthetic oneof of its own, listed after the real ones
  const oneofIndex = field.optional ? message.oneofDecl.length : undefined
  if (field.optional) message.oneofDecl.push(create(OneofDescriptorProtoSchema, { name: `_${field.name}` }))
  message.field.push(create(FieldDescriptorProtoSchema, {
    name: field.name,
    jsonName: field.jsonName,
    number: field.number,
    label: FieldDescriptorProto_Label.OPTIONAL,
    type: FieldDescriptorProto_Type.INT64,
    ...(oneofIndex !== undefined ? { oneofIndex, proto3Optional: true } : {})
  }))
}

const build = (): DescFile => {
  const proto = clone(FileDescriptorProtoSchema, file_a2a.proto)
  for (const field of added) {
    const message = proto.messageType.find((m) => m.name === field.message)
    // the drift tests keep the 1.0 proto's message names; a missing one is a bug of this library, found at load
    if (message === undefined) throw new Error(`the A2A descriptor has no message ${field.message}`)
    addField(message, field)
  }
  const deps = [file_google_protobuf_empty, file_google_protobuf_struct, file_google_protobuf_timestamp]
  const registry = createFileRegistry(proto, (name) => deps.find((file) => file.proto.name === name))
  const file = registry.getFile(proto.name)
  if (file === undefined) throw new Error("the A2A 1.1 draft's descriptor did not build")
  return file
}

/**
 * The draft's file: 1.0's messages and service, with the generation fields.
 *
 * @since 0.2.0
 * @category descriptors
 */
export const file_a2a_draft11: DescFile = build()

/**
 * The draft's `lf.a2a.v1.A2AService` (the same methods as 1.0's, whose messages carry the generation fields).
 *
 * @since 0.2.0
 * @category descriptors
 */
export const A2AService: DescService = file_a2a_draft11.services[0]!
