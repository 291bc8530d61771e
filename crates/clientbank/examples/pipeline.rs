//! The pipeline end to end against the built-in sandbox bank, with the sample files of
//! `testdata/valid/` — what `clientbank watch` will do for each file dropped in its inbox:
//! read and check, upload (1C files through `/operation-upload/1c`, JSON requests through
//! `/operation-upload` with `targetStatus: InSigning`), collect the ids, sign the payments
//! awaiting signature with a detached CMS signature made by the `openssl` command (a throwaway
//! certificate of the payer company, named by its INN), and read back the executed operations
//! and the balance. The 1C uploads are drafts, as the bank makes them: drafts are signed in the
//! bank's cabinet, not through the API.
//!
//! cargo run -p clientbank --example pipeline

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use clientbank_api::{Client, HistoryFilter, SignRequest, Token};
use clientbank_payment::Context;
use clientbank_payment::batch::Batch;
use clientbank_sandbox::{Config, Sandbox};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/valid")
}

#[tokio::main]
async fn main() -> Result<()> {
    let bank = Sandbox::start(Config::default()).await?;
    println!("sandbox bank at {}", bank.url());
    let client = Client::builder(bank.url())
        .token(Token::new("sandboxtoken"))
        .sandbox(true)
        .build()?;
    let companies = client.companies().await?;
    let account = companies
        .iter()
        .flat_map(|c| &c.bank_accounts)
        .find(|a| a.number.as_deref() == Some("40702810938000012345"))
        .ok_or("the sample payer account is not in the sandbox")?
        .clone();
    let before = client.balance(&account.id).await?;
    println!(
        "account {} balance {before}",
        account.number.as_deref().unwrap_or_default()
    );

    let mut ids = Vec::new();
    let mut drafts = Vec::new();
    for name in [
        "payment-orders-cp1251-crlf.txt",
        "payment-order-1.02-cp1251.txt",
    ] {
        let bytes = std::fs::read(testdata().join(name))?;
        // The layer `clientbank check` and the daemon read files with.
        let batch =
            Batch::read(bytes, &Context::today_in_moscow()).map_err(|r| format!("{name}: {r}"))?;
        let orders = batch.items().filter(|i| i.payment().is_some()).count();
        let (errors, _) = batch.counts();
        println!("{name}: {orders} payment order(s), {errors} error(s)");
        // The document travels as a JSON string, so as UTF-8 whatever its Кодировка says.
        let text = batch.document_text().ok_or("not a 1C file")?;
        let result = client.upload_1c(&text).await?;
        println!(
            "  uploaded as 1C: {} draft(s) {:?}",
            result.total_loaded, result.ids
        );
        for error in &result.errors {
            println!("  refused: {error}");
        }
        drafts.extend(result.ids);
    }
    let batch = Batch::read(
        std::fs::read(testdata().join("upload-requests.json"))?,
        &Context::today_in_moscow(),
    )
    .map_err(|f| f.to_string())?;
    for item in batch.items() {
        let Some(request) = item.request() else {
            continue;
        };
        let mut request = request.clone();
        request.parameters = Some(clientbank_payment::json::Parameters {
            target_status: Some(clientbank_payment::json::IN_SIGNING.to_string()),
        });
        let result = client.upload(&request).await?;
        println!(
            "upload-requests.json: payment {} uploaded as JSON: {:?}",
            request.payment.number.as_deref().unwrap_or("?"),
            result.created()
        );
        ids.extend(result.created().into_iter().map(str::to_string));
    }

    println!(
        "{} draft(s) from 1C files: to be signed in the bank's cabinet",
        drafts.len()
    );
    let content = SignRequest::signed_content(&ids);
    let signature = sign(&content)?;
    let answer = client
        .sign(&SignRequest {
            operations: ids.clone(),
            sign_base64: signature,
        })
        .await?;
    println!(
        "signed {} payment(s): {}",
        ids.len(),
        answer["operations"].as_array().map_or(0, Vec::len)
    );

    let history = client
        .operation_history(
            &account.id,
            &HistoryFilter {
                records: Some(50),
                ..HistoryFilter::default()
            },
        )
        .await?;
    for operation in history.iter().filter(|op| ids.contains(&op.id)) {
        println!(
            "  executed {} № {} {} to {}",
            operation
                .executed
                .map(|t| t.to_string())
                .unwrap_or_default(),
            operation.doc_number.as_deref().unwrap_or_default(),
            operation
                .amount
                .map(|a| a.to_string())
                .unwrap_or_else(|| "(amount unreadable)".into()),
            operation.contragent_name.as_deref().unwrap_or_default()
        );
    }
    let after = client.balance(&account.id).await?;
    println!("balance {before} -> {after}");
    if history.iter().filter(|op| ids.contains(&op.id)).count() != ids.len() {
        return Err("not every signed payment was executed".into());
    }
    Ok(())
}

/// A throwaway certificate and a detached CMS signature (DER, Base64) made with openssl.
fn sign(content: &str) -> Result<String> {
    let dir = tempfile::tempdir()?;
    let run = |args: &[&str]| -> Result<()> {
        let output = Command::new("openssl")
            .current_dir(dir.path())
            .args(args)
            .output()?;
        if !output.status.success() {
            return Err(format!(
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            )
            .into());
        }
        Ok(())
    };
    std::fs::write(dir.path().join("content"), content)?;
    run(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        "key.pem",
        "-out",
        "cert.pem",
        "-days",
        "1",
        "-utf8",
        "-subj",
        // The bank takes the signing company from the certificate's INN.
        "/CN=Главный бухгалтер/O=Ромашка/INN=007701234560",
    ])?;
    run(&[
        "cms",
        "-sign",
        "-binary",
        "-in",
        "content",
        "-signer",
        "cert.pem",
        "-inkey",
        "key.pem",
        "-outform",
        "DER",
        "-out",
        "signature.der",
    ])?;
    let der = std::fs::read(Path::new(dir.path()).join("signature.der"))?;
    Ok(base64::engine::general_purpose::STANDARD.encode(der))
}
