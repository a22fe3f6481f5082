/**
 * The page's only script (inline, no external URL): sign-in with an API key kept in the tab's
 * `sessionStorage` (never in a URL, never logged), `#/…` routing, and every request sent with the key
 * in the `authorization` header — the HTML fragments of `/v1/ui/*`, the JSON memory API, and the
 * "get it back" links (a spilled blob, a session-log row, a memory), shown in the page.
 */
export const UI_SCRIPT = `
(function(){
var KEY='ctxkit-api-key',view=document.getElementById('view'),signin=document.getElementById('signin'),
  note=document.getElementById('note'),nav=document.getElementById('nav'),out=document.getElementById('signout');
function key(){return sessionStorage.getItem(KEY)||''}
function say(text,bad){note.textContent=text;note.className=bad?'note bad':'note';note.hidden=!text}
function api(path,opts){opts=opts||{};var h=opts.headers||{};h.authorization='Bearer '+key();opts.headers=h;
  return fetch(path,opts).then(function(r){if(r.status===401){sessionStorage.removeItem(KEY);show();}return r;});}
function problem(r){return r.json().then(function(b){return r.status+' '+((b&&b.error&&b.error.message)||r.statusText)},
  function(){return r.status+' '+r.statusText});}
function show(message){
  var on=!!key();signin.hidden=on;nav.hidden=!on;
  if(!on){view.innerHTML='';if(message)say(message,true);document.getElementById('key').focus();return;}
  route();
}
function focusHeading(){var h=view.querySelector('h2[tabindex]');if(h)h.focus();}
function fragment(path){
  view.setAttribute('aria-busy','true');
  return api(path).then(function(r){
    if(r.status===401)return;
    if(!r.ok)return problem(r).then(function(m){view.innerHTML='';say(m,true);});
    return r.text().then(function(html){say('');view.innerHTML=html;
      if(window.ctxkitFilters)window.ctxkitFilters(view);focusHeading();});
  }).catch(function(e){say('The service did not answer: '+e.message,true);})
  .then(function(){view.removeAttribute('aria-busy');});
}
function route(){
  var h=location.hash.replace(/^#\\/?/,''),q='',i=h.indexOf('?');
  if(i>=0){q=h.slice(i+1);h=h.slice(0,i);}
  var p=h.split('/').filter(Boolean).map(decodeURIComponent);
  nav.querySelectorAll('a').forEach(function(a){
    if(a.getAttribute('href')==='#/'+(p[0]||'sessions'))a.setAttribute('aria-current','page');else a.removeAttribute('aria-current');});
  if(p[0]==='memories')return memories(new URLSearchParams(q).get('q')||'');
  if(p[0]==='sessions'&&p[1]&&p[2]==='calls'&&p[3])
    return fragment('/v1/ui/sessions/'+encodeURIComponent(p[1])+'/calls/'+encodeURIComponent(p[3]));
  if(p[0]==='sessions'&&p[1])return fragment('/v1/ui/sessions/'+encodeURIComponent(p[1])+(q?'?'+q:''));
  return fragment('/v1/ui/sessions'+(q?'?'+q:''));
}
function cell(tr,text,cls,label){var td=document.createElement('td');td.textContent=text;if(cls)td.className=cls;
  if(label)td.setAttribute('data-label',label);tr.appendChild(td);return td;}
function memories(q){
  view.innerHTML=document.getElementById('memories-template').innerHTML;
  var form=view.querySelector('form'),body=view.querySelector('tbody'),status=view.querySelector('.summary');
  form.q.value=q;
  var load=q?api('/v1/memories/search',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({query:q,limit:50})})
    :api('/v1/memories?limit=200');
  load.then(function(r){
    if(r.status===401)return;
    if(!r.ok)return problem(r).then(function(m){say(m,true);});
    return r.json().then(function(b){
      var list=q?(b.hits||[]).map(function(x){var mem=/^memory:/.test(x.source);
        return {id:mem?x.source.slice(7):'',source:x.source,title:x.source+' (score '+x.score.toFixed(3)+')',content:x.text,hit:true};}):b.memories;
      status.textContent=list.length+(q?' found for “'+q+'”':' memories');
      list.forEach(function(m){
        var tr=document.createElement('tr');cell(tr,m.id||'','id wide');cell(tr,m.type||'','','type');cell(tr,m.title||'','','title');
        cell(tr,(m.content||'').slice(0,200),'preview','content');cell(tr,m.hit?'—':m.pinned?'pinned':'','','pinned');
        cell(tr,m.hit?'—':m.expiresAt?new Date(m.expiresAt).toISOString().slice(0,10):'never','','expires');
        var td=cell(tr,'');
        if(m.id){var b2=document.createElement('button');b2.type='button';b2.textContent='Delete';
          b2.setAttribute('aria-label','Delete memory '+(m.title||m.id));
          b2.addEventListener('click',function(){
            if(!confirm('Delete memory “'+(m.title||m.id)+'”?'))return;
            api('/v1/memories/'+encodeURIComponent(m.id),{method:'DELETE'}).then(function(r){
              if(r.ok){tr.remove();say('Deleted '+m.id+'.');}else problem(r).then(function(x){say(x,true);});});});
          td.appendChild(b2);}
        body.appendChild(tr);});
      focusHeading();});
  }).catch(function(e){say('The service did not answer: '+e.message,true);});
}
function recover(a){
  var target=document.getElementById('recovered'),href=a.getAttribute('href'),hash=href.indexOf('#'),id='';
  if(hash>=0){id=decodeURIComponent(href.slice(hash+1));href=href.slice(0,hash);}
  target.textContent='Reading '+href+' …';
  api(href).then(function(r){
    if(!r.ok)return problem(r).then(function(m){target.textContent=m;});
    return r.text().then(function(t){
      if(id){try{var rows=JSON.parse(t).messages||[];var row=rows.filter(function(x){return x.message&&x.message.id===id;})[0];
        t=row?JSON.stringify(row.message,null,2):'message '+id+' is not in the session log';}catch(e){}}
      target.textContent=t;target.setAttribute('data-from',href);target.focus();});
  });
}
document.addEventListener('click',function(e){
  var a=e.target.closest&&e.target.closest('a[data-recover]');
  if(a){e.preventDefault();recover(a);return;}
  // A link to a row of the view (the largest items → the message list) moves there, not to a route.
  var inner=e.target.closest&&e.target.closest('a[href^="#"]:not([href^="#/"])');
  if(inner){var t=document.getElementById(decodeURIComponent(inner.getAttribute('href').slice(1)));
    if(t){e.preventDefault();t.setAttribute('tabindex','-1');t.scrollIntoView({block:'center'});t.focus({preventScroll:true});}}
});
document.addEventListener('submit',function(e){
  var f=e.target;
  if(f===signin){e.preventDefault();var k=f.key.value.trim();if(!k)return say('Enter an API key.',true);
    fetch('/v1/sessions?limit=1',{headers:{authorization:'Bearer '+k}}).then(function(r){
      if(r.status===401||r.status===403)return problem(r).then(function(m){say('The key was refused ('+m+').',true);f.key.select();});
      if(!r.ok)return problem(r).then(function(m){say(m,true);});
      sessionStorage.setItem(KEY,k);f.key.value='';say('');show();
    }).catch(function(err){say('The service did not answer: '+err.message,true);});return;}
  var r=f.getAttribute('data-route');
  if(r){e.preventDefault();var q=f.q.value.trim();location.hash='#/'+r+(q?'?q='+encodeURIComponent(q):'');}
});
out.addEventListener('click',function(){sessionStorage.removeItem(KEY);location.hash='';say('Signed out.');show();});
window.addEventListener('hashchange',function(){if(key()&&(location.hash===''||/^#\\//.test(location.hash)))show();});
show();
})();
`;
