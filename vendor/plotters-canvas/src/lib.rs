/*!
   The Plotters HTML5 Canvas backend.

   This backend allows Plotters operates the HTML5 Canvas when targeted to Webassembly.

   See the documentation for [CanvasBackend](struct.CanvasBackend.html) for more details.
*/
// The upstream code calls web-sys setters deprecated since; as a registry crate its warnings were
// capped, as a path crate they would show in every build.
#![allow(deprecated)]
mod canvas;

pub use canvas::CanvasBackend;
