package dev.larder.model;

import dev.larder.codec.Codec;
import dev.larder.codec.Codecs;
import dev.larder.codec.ValueDictionary;
import dev.larder.codec.ValueDictionary.Mode;
import java.util.Locale;

/**
 * The codecs of the model's parts, either plain or substituting through a dictionary. The
 * dictionary spaces, in the order they are created (which a restored dictionary relies on: a
 * qualified name's stored form refers to the namespace space):
 *
 * <table>
 *   <caption>Dictionary spaces of the content-node model</caption>
 *   <tr><th>space</th><th>values</th><th>mode</th></tr>
 *   <tr><td>namespace</td><td>namespace URIs</td><td>always</td></tr>
 *   <tr><td>qname</td><td>qualified names</td><td>always for aspect and property names,
 *       adaptive for qname-valued properties</td></tr>
 *   <tr><td>store</td><td>store references</td><td>always</td></tr>
 *   <tr><td>mimetype</td><td>mimetypes</td><td>always</td></tr>
 *   <tr><td>encoding</td><td>character encodings</td><td>always</td></tr>
 *   <tr><td>locale</td><td>locales</td><td>always</td></tr>
 *   <tr><td>text</td><td>text property values</td><td>adaptive</td></tr>
 *   <tr><td>shape</td><td>node shapes: aspect and property names</td><td>adaptive</td></tr>
 * </table>
 *
 * @param name aspect and property names
 * @param qnameValue qname-valued properties
 * @param store store references
 * @param mimetype mimetypes
 * @param encoding encodings
 * @param locale locales
 * @param text text property values
 * @param shape node shapes
 */
record ModelForms(
    Codec<QName> name,
    Codec<QName> qnameValue,
    Codec<StoreRef> store,
    Codec<String> mimetype,
    Codec<String> encoding,
    Codec<Locale> locale,
    Codec<String> text,
    Codec<NodeShape> shape) {

  static ModelForms plain() {
    Codec<QName> qnames = new QNameCodec(Codecs.strings());
    return new ModelForms(
        qnames,
        qnames,
        new StoreRefCodec(),
        Codecs.strings(),
        Codecs.strings(),
        Codecs.locales(),
        Codecs.strings(),
        new NodeShapeCodec(qnames));
  }

  static ModelForms substituting(ValueDictionary d) {
    Codec<String> namespaces = d.substitute("namespace", Codecs.strings(), Mode.ALWAYS);
    Codec<QName> inlineQName = new QNameCodec(namespaces);
    Codec<QName> names = d.substitute("qname", inlineQName, Mode.ALWAYS);
    return new ModelForms(
        names,
        d.substitute("qname", inlineQName, Mode.ADAPTIVE),
        d.substitute("store", new StoreRefCodec(), Mode.ALWAYS),
        d.substitute("mimetype", Codecs.strings(), Mode.ALWAYS),
        d.substitute("encoding", Codecs.strings(), Mode.ALWAYS),
        d.substitute("locale", Codecs.locales(), Mode.ALWAYS),
        d.substitute("text", Codecs.strings(), Mode.ADAPTIVE),
        d.substitute("shape", new NodeShapeCodec(names), Mode.ADAPTIVE));
  }
}
