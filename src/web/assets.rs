//! The page: HTML, CSS and JavaScript embedded in the binary (no build step, no CDN: the
//! machine may be offline). Only these names are served; any other path is a 404, and a
//! path trying to climb out (`..`, encoded slashes, backslashes) a 400.

use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use super::api::{ApiError, no_route};

/// (name, content type, content).
const ASSETS: [(&str, &str, &str); 4] = [
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/app.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("assets/style.css"),
    ),
    ("icon.svg", "image/svg+xml", include_str!("assets/icon.svg")),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("assets/board.js"),
    ),
];

const INDEX: &str = include_str!("assets/index.html");

fn page(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

pub(super) async fn index() -> Response {
    page("text/html; charset=utf-8", INDEX)
}

pub(super) async fn asset(uri: Uri) -> Response {
    let name = uri.path().strip_prefix("/assets/").unwrap_or("");
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, content_type, body)) => page(content_type, body),
        None => not_found(uri).await,
    }
}

/// True if a request path tries to leave the folder it names: `..` or `.` segments,
/// backslashes, NUL, or percent-encoded dots, slashes and backslashes.
pub(super) fn climbs(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    path.split('/').any(|seg| seg == ".." || seg == ".")
        || path.contains('\\')
        || path.contains('\0')
        || ["%2e", "%2f", "%5c", "%00"]
            .iter()
            .any(|code| lower.contains(code))
}

/// Every path that is no route.
pub(super) async fn not_found(uri: Uri) -> Response {
    let path = uri.path();
    if climbs(path) {
        return ApiError::bad(format!("path {path} refused: it leaves the served files"))
            .into_response();
    }
    if path.starts_with("/api/") || path == "/api" {
        return no_route(&uri).into_response();
    }
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("no page {path}"),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn climbing_paths_are_recognised() {
        for bad in [
            "/..",
            "/a/../b",
            "/./x",
            "/a\\b",
            "/%2e%2e/x",
            "/a%2Fb",
            "/a%5cb",
            "/a%00",
        ] {
            assert!(climbs(bad), "{bad}");
        }
        for good in ["/", "/assets/app.js", "/api/games/1", "/a..b"] {
            assert!(!climbs(good), "{good}");
        }
    }
}
